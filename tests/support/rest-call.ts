/**
 * One REST call to a running service, as its users make it: the status and the parsed JSON body
 * (typed `any` unless asked: each caller reads the fields it expects).
 */
export async function restCall<Body = any>(
  baseUrl: string,
  method: string,
  path: string,
  token: string,
  body?: object,
  organizationId?: string,
): Promise<{ status: number; body: Body }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body && { 'content-type': 'application/json' }),
      ...(organizationId && { organization_id: organizationId }),
    },
    body: body && JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
