import { describe, expect, it } from 'vitest';
import { repeatedMember } from '../../shared/model/json-members.ts';

describe('a JSON member given twice (issue 19)', () => {
  it.each([
    ['{"status":"LOST","status":"ACTIVE"}', 'status'],
    ['{"a":1,"b":{"c":1,"c":2}}', 'b.c'],
    ['{"list":[{"id":1},{"id":2,"x":0,"id":3}]}', 'list.1.id'],
    ['{"a":[[{"b":1}],{"b":1,"b":1}]}', 'a.1.b'],
    ['{"\\u0073tatus":1,"status":2}', 'status'],
    ['{"a\\"b":1,"a\\"b":2}', 'a"b'],
    [' { "a" : 1 , "a" : 2 } ', 'a'],
  ])('is found in %s: %s', (json, path) => expect(repeatedMember(json)).toBe(path));

  it.each([
    '{"a":1,"b":2}',
    '{"a":{"a":{"a":1}}}',
    '{"a":[{"id":1},{"id":2}],"b":{"id":3}}',
    '{"a":"\\"a\\":1,\\"a\\":2","b":"{\\"a\\"}"}',
    '{"a":["a","a"],"b":{}}',
    '{}',
  ])('is not found in %s', (json) => expect(repeatedMember(json)).toBeUndefined());
});
