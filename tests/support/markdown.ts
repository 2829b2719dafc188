/**
 * Markdown, as far as the tests that keep the documents true need it: the prose lines, and the
 * fenced code blocks with their info strings (`sh tour`, `json tsconfig.json`).
 */

export interface CodeBlock {
  /** The info string after the opening fence: `sh tour`. */
  info: string;
  body: string;
}

export interface Markdown {
  /** The lines outside fenced code blocks. */
  prose: string[];
  blocks: CodeBlock[];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/;

export function parseMarkdown(text: string): Markdown {
  const prose: string[] = [];
  const blocks: CodeBlock[] = [];
  let open: { fence: string; info: string; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    const fence = FENCE.exec(line);
    if (!open) {
      if (fence) open = { fence: fence[1]!, info: fence[2]!.trim(), lines: [] };
      else prose.push(line);
    } else if (fence && fence[2]!.trim() === '' && fence[1]!.startsWith(open.fence)) {
      blocks.push({ info: open.info, body: open.lines.join('\n') });
      open = undefined;
    } else {
      open.lines.push(line);
    }
  }
  return { prose, blocks };
}

/** The body of the one block whose info string is `info`; an error when there is none or more. */
export function codeBlock(markdown: Markdown, info: string): string {
  const found = markdown.blocks.filter((block) => block.info === info);
  if (found.length !== 1) throw new Error(`${found.length} code blocks "${info}", expected one`);
  return found[0]!.body;
}
