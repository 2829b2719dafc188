/**
 * Markdown, as far as the tests that keep the documents true need it: the prose lines, the fenced
 * code blocks with their info strings (`sh tour`, `json tsconfig.json`), sections and tables (the
 * settings table of docs/configuration.md, which tests/readme.test.ts checks against
 * server/platform/config.ts and tests/settings.test.ts against the tests that run each setting).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './process.ts';

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

/** The prose lines of the `## heading` section, up to the next heading of level 1 or 2. */
export function section(markdown: Markdown, heading: string): string[] {
  const start = markdown.prose.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.prose.findIndex((line, index) => index > start && /^#{1,2} /.test(line));
  return markdown.prose.slice(start + 1, end < 0 ? undefined : end);
}

/** The cells of every table row among `lines`, header and separator rows included. */
export const tableRows = (lines: string[]): string[][] =>
  lines
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );

/** The text of a cell that is one code span: `` `x` `` → `x`. */
export const codeOf = (cell: string | undefined) => /^`([^`]+)`$/.exec(cell ?? '')?.[1];

/** The settings table of docs/configuration.md (its `## Settings`), one row per setting: its name, meaning and default. */
export function settingRows(): Array<{ name: string; cells: string[] }> {
  const configuration = parseMarkdown(readFileSync(join(projectRoot, 'docs', 'configuration.md'), 'utf8'));
  return tableRows(section(configuration, 'Settings')).flatMap((cells) => {
    const name = codeOf(cells[0]);
    return name === undefined ? [] : [{ name, cells }];
  });
}
