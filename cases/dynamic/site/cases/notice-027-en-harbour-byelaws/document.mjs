// A plain-text public notice (UTF-8, LF line ends), as harbour authorities post them beside the PDF.
const text = `MERIDIAN HARBOUR AUTHORITY
Notice of proposed byelaws — mooring and anchoring, 2027

1. No vessel may anchor within the fairway between the outer buoy and the ferry slip.
2. Moorings in the Inner Basin are let for twelve months from 1 April; the waiting list opens on 1 January.
3. A vessel left on a visitor mooring for more than fourteen days without payment may be moved at the owner’s cost.
4. Speed in the harbour is limited to six knots, and to four knots within fifty metres of the slipway.

Objections may be sent to the Harbour Master, Quayside Office, until 31 January 2027.
`;

export default { name: 'harbour-byelaws-2027.txt', bytes: () => Buffer.from(text, 'utf8') };
