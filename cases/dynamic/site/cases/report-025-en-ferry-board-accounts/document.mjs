// A one-page PDF (PDF 1.4, Helvetica, no compression), written byte by byte so the build needs no PDF
// library and gives the same bytes every time: the cross-reference table's offsets are computed here.
const lines = [
  'Meridian Estuary Ferry Board',
  'Summary accounts for the year to 31 March 2026',
  '',
  'Fares and passes ............ 412,300',
  'County grant ................ 180,000',
  'Operating costs ............. 611,850',
  'Deficit met from reserves ...  19,550',
  '',
  'The night crossing carried 38,420 passengers in the year.',
  'Approved by the board on 24 November 2026.',
];

function escape(text) {
  return text.replace(/\\/g, '\\\\').replace(/\(/g, '\\(').replace(/\)/g, '\\)');
}

function pdf() {
  const stream = ['BT', '/F1 12 Tf', '14 TL', '72 760 Td', ...lines.map((line) => `(${escape(line)}) '`), 'ET'].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((body, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export default { name: 'ferry-board-accounts-2026.pdf', bytes: pdf };
