/** Where the webhook procedures are served on REST (also under /api). */
export const path = '/organizations/{organization_id}/webhooks';
export const webhookPath = `${path}/{webhook_id}`;
export const tags = ['webhooks'];
