/** The URL guard's options as this deployment's settings say (behaviour §13). */
import type { Settings } from '../../platform/config.ts';
import type { UrlGuardOptions } from './url-guard.ts';

export const guardOptions = (settings: Settings): UrlGuardOptions => ({
  allowHttp: settings.WEBHOOK_ALLOW_HTTP,
  allowPrivate: settings.WEBHOOK_ALLOW_PRIVATE,
});
