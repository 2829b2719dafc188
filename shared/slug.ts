/** A slug (behaviour §15): lower-case letters and digits, single hyphens inside. Free of zod, for the bench's baseline too. */
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * What a slug must not look like: an id, which `GET /organizations/{id}` would take it for. Any
 * 8-4-4-4-12 run of hex digits, whatever its version and variant digits say: a path tells a slug
 * from an id by this shape alone.
 */
export const UUID_SHAPE_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const UUID_SHAPE = new RegExp(UUID_SHAPE_PATTERN, 'i');

/** Whether a slug may be given or kept: its pattern, its length, and not a UUID's shape. */
export const isSlug = (slug: string): boolean =>
  SLUG_PATTERN.test(slug) && slug.length >= 2 && slug.length <= 64 && !UUID_SHAPE.test(slug);
