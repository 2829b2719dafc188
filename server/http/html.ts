/** What the service writes into the HTML pages it serves (the console's, the reference page's). */

const ATTRIBUTE_SPECIALS: Record<string, string> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
};

/**
 * `text` as the value of a quoted HTML attribute: the characters that would end it or start a
 * character reference or a tag as references. A URL's `&` among them: `/a&copy/` in an attribute
 * reads as `/a©/`.
 */
export const escapeHtmlAttribute = (text: string): string =>
  text.replace(/[&"'<>]/g, (special) => ATTRIBUTE_SPECIALS[special]!);
