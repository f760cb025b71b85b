/**
 * STS answers in the AWS Query protocol: XML with the `https://sts.amazonaws.com/doc/2011-06-15/`
 * namespace, errors as `<ErrorResponse><Error><Type>Sender</Type><Code/><Message/></Error><RequestId/>`.
 */
import { escapeXml } from "../s3/cors-xml";

export const STS_XMLNS = "https://sts.amazonaws.com/doc/2011-06-15/";

export const requestId = () => crypto.randomUUID();

export function stsXml(body: string, id: string): Response {
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/xml", "x-amzn-requestid": id },
  });
}

export function stsError(status: number, code: string, message: string): Response {
  const id = requestId();
  const type = status >= 500 ? "Receiver" : "Sender";
  const xml = `<ErrorResponse xmlns="${STS_XMLNS}">\n  <Error>\n    <Type>${type}</Type>\n    <Code>${code}</Code>\n    <Message>${escapeXml(message)}</Message>\n  </Error>\n  <RequestId>${id}</RequestId>\n</ErrorResponse>\n`;
  return new Response(xml, { status, headers: { "content-type": "text/xml", "x-amzn-requestid": id } });
}

/** What STS answers when the role's trust policy does not let the token's subject in. */
export const NOT_AUTHORIZED = "Not authorized to perform sts:AssumeRoleWithWebIdentity";
/** AWS's description of InvalidIdentityTokenException, for a token it cannot verify. */
export const NOT_VALIDATED =
  "The web identity token that was passed could not be validated by AWS. Get a new identity token from the identity provider and then retry the request.";
/** AWS's description of ExpiredTokenException. */
export const EXPIRED =
  "The web identity token that was passed is expired or is not valid. Get a new identity token from the identity provider and then retry the request.";
