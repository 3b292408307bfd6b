/**
 * Headers on every response, whoever answers (handlers, gateway responses, the OpenAPI document,
 * the local gateway): no MIME sniffing, and HTTPS only for a year (browsers ignore it over the
 * local stack's plain http). A module of its own, so the smallest bundles carry nothing more.
 */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
} as const;
