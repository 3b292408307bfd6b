/**
 * JSON (RFC 8259 §4) leaves a member given twice to the reader: JSON.parse keeps the last, a proxy
 * or firewall may read the first. The API refuses such bodies, so every reader sees one request.
 */

interface Frame {
  /** The names met so far in an object; undefined in an array. */
  names?: Set<string>;
  /** The member (object) or index (array) being read. */
  at: string | number;
  expectName: boolean;
}

/**
 * The path of the first member an object of `json` holds twice (`status`, `a.b`, `list.0.id`), at
 * any depth, names compared after unescaping (`"a"` and `"\u0061"` are one name); undefined when
 * there is none. `json` is valid JSON (JSON.parse has read it).
 */
export function repeatedMember(json: string): string | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top?.names && top.expectName) {
        const name = JSON.parse(json.slice(i, end + 1)) as string;
        if (top.names.has(name)) return [...stack.slice(0, -1).map((frame) => frame.at), name].join('.');
        top.names.add(name);
        top.at = name;
        top.expectName = false;
      }
      i = end;
    } else if (c === '{') {
      stack.push({ names: new Set(), at: '', expectName: true });
    } else if (c === '[') {
      stack.push({ at: 0, expectName: false });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack.at(-1)!;
      if (top.names) top.expectName = true;
      else top.at = (top.at as number) + 1;
    }
  }
  return undefined;
}
