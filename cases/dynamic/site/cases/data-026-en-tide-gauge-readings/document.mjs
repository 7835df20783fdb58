// The harbour tide gauge's readings for one day, every two hours, as the harbour office publishes them (CSV,
// RFC 4180: CRLF line ends, a header row).
const rows = [['time_utc', 'height_m', 'gauge']];
const heights = [3.12, 4.05, 4.61, 3.88, 2.47, 1.36, 1.02, 1.74, 3.01, 4.12, 4.58, 3.67];
heights.forEach((height, index) => {
  rows.push([`2026-11-30T${String(index * 2).padStart(2, '0')}:00Z`, height.toFixed(2), 'Quayside No. 2']);
});
const csv = rows.map((row) => row.map((cell) => (/[",\s]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',')).join('\r\n') + '\r\n';

export default { name: 'tide-gauge-2026-11-30.csv', bytes: () => Buffer.from(csv, 'utf8') };
