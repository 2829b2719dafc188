/**
 * Public e-mail providers' domains (behaviour §17): nobody's organization may hold gmail.com. The
 * list is the npm package `email-providers` (`all.json`, several thousand domains, kept up to date
 * by its maintainer from public sources), not one of our own.
 */
import providers from 'email-providers/all.json' with { type: 'json' };

const PUBLIC_PROVIDERS: ReadonlySet<string> = new Set(providers);

export const isPublicEmailProvider = (domain: string): boolean => PUBLIC_PROVIDERS.has(domain);
