/** Who is calling: resolved by the authorizer from the token, never from the request. */
export interface CallerContext {
  workspaceId: string;
  apiClientId: string;
  scopes: readonly string[];
  requestId: string;
}
