/**
 * A cell's Markdown on the one line a GFM table cell has. Only inline Markdown renders in a cell,
 * so block syntax is turned into its inline reading: code blocks into code spans line by line,
 * heading and quote markers and rules dropped, line breaks and paragraph gaps into `<br>`. Every
 * `|` is escaped, in code spans and link targets too, as the GFM table syntax requires.
 */
export function cellText(markdown: string): string {
  return (
    markdown
      // Fences may be indented (a code block in a list item): so are their lines, by as much.
      .replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n[ \t]*\2[ \t]*$/gm, (_block, indent: string, _fence, code: string) =>
        code
          .split('\n')
          .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
          .filter((line) => line.trim())
          .map(codeSpan)
          .join('\n'),
      )
      .split('\n')
      .map((line) =>
        line
          .trim()
          // Turndown escapes these characters in text, so only its own markers match.
          .replace(/^(?:>[ \t]?)+/, '')
          .replace(/^#{1,6}[ \t]+/, '')
          .replace(/^(?:\* \* \*|-{3,}|_{3,}|\*{3,})$/, ''),
      )
      // Blank lines (paragraph gaps) go; turndown's hard breaks lose their trailing spaces to trim().
      .filter(Boolean)
      .join('<br>')
      .replace(/\|/g, '\\|')
  );
}

/** One line of code as a code span, its delimiter longer than any run of backticks in it. */
function codeSpan(line: string): string {
  let longest = 0;
  for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  // A span's first and last space are dropped when both are there, and a backtick next to the fence would close it.
  const pad = /^[` ]|[` ]$/.test(line) ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}
