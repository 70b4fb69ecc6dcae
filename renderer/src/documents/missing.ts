/**
 * The sentence for characters a PDF could not print (the server lists them as "U+9C2F U+20BB7" in
 * X-Ardesk-Missing-Characters; they show in the file as a replacement mark), or null when all printed.
 */
export function missingCharactersNote(header: string | null): string | null {
  const chars = (header ?? '')
    .split(/\s+/)
    .map((code) => /^U\+([0-9A-F]{4,6})$/i.exec(code))
    .filter((match) => match !== null)
    .map((match) => String.fromCodePoint(parseInt(match[1], 16)));
  if (!chars.length) return null;
  const list = chars.map((c) => `“${c}”`).join(', ');
  return `${chars.length === 1 ? 'One character' : `${chars.length} characters`} could not be printed and show${chars.length === 1 ? 's' : ''} as � in the PDF: ${list}. Check the names and addresses before sending it.`;
}
