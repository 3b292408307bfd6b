/** Who is calling: resolved by the authorizer from the token, never from the request. */
export interface CallerContext {
  workspaceId: string;
  apiClientId: string;
  scopes: readonly string[];
  requestId: string;
}

/** A resource and the version its ETag names. */
export interface Versioned<T> {
  resource: T;
  version: number;
}

/**
 * If-Match as versions: a change happens only if the current version is one of them (an empty
 * list matches nothing). Undefined means no precondition: If-Match absent or `*`.
 */
export type IfMatch = readonly number[] | undefined;


/** What a delete answers. */
export interface Deleted {
  object: string;
  id: string;
  deleted: true;
}
