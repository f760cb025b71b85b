/**
 * Microsoft's answers. Graph: JSON with the OData envelope (`@odata.context`), errors as
 * `{error:{code, message, innerError:{date, request-id, client-request-id}}}`, `request-id` and
 * `client-request-id` on every answer, `Retry-After` (seconds) on a 429. The token endpoint:
 * OAuth errors with AADSTS codes, `error_codes`, `trace_id` and `correlation_id`.
 */

export const GRAPH_RETRY_AFTER_SECONDS = 2;

export function graphHeaders(request?: Request): Record<string, string> {
  const requestId = crypto.randomUUID();
  return {
    "request-id": requestId,
    "client-request-id": request?.headers.get("client-request-id") ?? requestId,
    "x-ms-ags-diagnostic": JSON.stringify({ ServerInfo: { DataCenter: "West Europe", Slice: "E" } }),
    "cache-control": "no-cache",
    "strict-transport-security": "max-age=31536000",
  };
}

export function graphJson(status: number, body: unknown, request?: Request): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type":
        "application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8",
      "odata-version": "4.0",
      ...graphHeaders(request),
    },
  });
}

export function graphError(
  status: number,
  code: string,
  message: string,
  request?: Request,
  extra: Record<string, string> = {},
): Response {
  const headers = graphHeaders(request);
  const body = {
    error: {
      code,
      message,
      innerError: {
        date: new Date().toISOString().slice(0, 19),
        "request-id": headers["request-id"],
        "client-request-id": headers["client-request-id"],
      },
    },
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers, ...extra },
  });
}

export function aadError(status: number, error: string, code: number, description: string): Response {
  const traceId = crypto.randomUUID();
  const correlationId = crypto.randomUUID();
  const timestamp = new Date().toISOString().replace("T", " ").slice(0, 19);
  return new Response(
    JSON.stringify({
      error,
      error_description: `AADSTS${code}: ${description} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}Z`,
      error_codes: [code],
      timestamp: `${timestamp}Z`,
      trace_id: traceId,
      correlation_id: correlationId,
      error_uri: `https://login.microsoftonline.com/error?code=${code}`,
    }),
    { status, headers: { "content-type": "application/json; charset=utf-8", "x-ms-request-id": traceId } },
  );
}
