/**
 * The extent of a Python `def`/`class` block from its header line, by indentation: the header's
 * decorators are not included; the block ends before the first non-blank line indented no deeper
 * than the header. Used to show the breakdown of the block a code lens sits on. Pure.
 */

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * 0-based inclusive line range of the block whose header is at 0-based `header`; trailing blank
 * lines are not part of it. Out-of-range headers give a one-line range.
 */
export function blockRange(lines: readonly string[], header: number): { start: number; end: number } {
  const headerText = lines[header];
  if (headerText === undefined) {
    return { start: header, end: header };
  }
  const indent = indentOf(headerText);
  let end = header;
  // A header may continue over several lines (open parenthesis); stop at its closing colon.
  let i = header;
  while (i < lines.length - 1 && !/:\s*(#.*)?$/.test(lines[i] ?? '')) {
    i += 1;
  }
  end = i;
  for (let j = i + 1; j < lines.length; j += 1) {
    const text = lines[j] ?? '';
    if (text.trim() === '') {
      continue;
    }
    if (indentOf(text) <= indent) {
      break;
    }
    end = j;
  }
  return { start: header, end };
}
