/** Where the joining procedures are served on REST (also under /api). */
export const requestsPath = '/organizations/{organization_id}/join-requests';
export const requestPath = `${requestsPath}/{request_id}`;
export const myRequestsPath = '/join-requests';
export const tags = ['joining'];
