/** Where the API key procedures are served on REST (also under /api). */
export const path = '/organizations/{organization_id}/api-keys';
export const keyPath = `${path}/{key_id}`;
export const tags = ['api keys'];
