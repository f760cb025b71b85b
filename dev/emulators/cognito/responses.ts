/**
 * Cognito's answers in the AWS JSON 1.1 protocol: `application/x-amz-json-1.1` bodies, errors as
 * `{"__type": "<Name>Exception", "message"}` with `x-amzn-ErrorType` and `x-amzn-RequestId`.
 * Nearly every client error is HTTP 400, throttling included (TooManyRequestsException).
 */

const ERROR_NAMESPACE = "http://internal.amazon.com/coral/com.amazonaws.cognito.identity.idp.model/";

export function awsJson(body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { "content-type": "application/x-amz-json-1.1", "x-amzn-requestid": crypto.randomUUID() },
  });
}

export function awsError(type: string, message: string, status = 400): Response {
  return new Response(JSON.stringify({ __type: type, message }), {
    status,
    headers: {
      "content-type": "application/x-amz-json-1.1",
      "x-amzn-errortype": `${type}:${ERROR_NAMESPACE}`,
      "x-amzn-requestid": crypto.randomUUID(),
    },
  });
}

export const INVALID_SIGNATURE =
  "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";
