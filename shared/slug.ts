/** A slug (behaviour §15): lower-case letters and digits, single hyphens inside. Free of zod, for the bench's baseline too. */
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
