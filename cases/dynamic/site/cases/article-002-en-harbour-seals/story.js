export const site = {
  name: 'Coastline Weekly',
  tagline: 'The north coast, every Thursday',
  sections: ['Coast', 'Wildlife', 'Fishing', 'Letters', 'What’s on'],
  footer: ['Subscribe to the print edition', 'Write to the editor', 'Advertising', 'Privacy and cookies'],
  footnote: 'Coastline Weekly, 14 Harbour Row, Calder Bay.',
};

export const story = {
  kicker: 'Wildlife',
  title: 'Volunteers count a record number of seal pups on the Calder sandbanks',
  author: 'Morven Achterberg',
  role: 'Wildlife correspondent',
  date: '26 November 2026',
  paragraphs: [
    'Volunteers who walk the Calder sandbanks every autumn counted two hundred and twelve grey seal pups this year, the most since the survey began in 1998 and nearly forty more than last year.',
    'The count is made at low tide over three mornings in early November, when most pups are between one and three weeks old and still wear their white coats. Teams of four walk set lines across the banks at a distance agreed with the coastal rangers, and each pup is logged with its position and the colour of its coat.',
    'Dr Elspeth Varga, who leads the survey for the Calder Bay Wildlife Trust, said the rise probably reflected a quiet year on the banks rather than a sudden boom in the colony. The trust closed two paths near the haul-out in September, and storms that washed pups off the sand in 2024 and 2025 did not come this autumn.',
    'Not every pup will survive the winter. Rangers expect to find some dead on the tideline after the first big swell, and a handful each year are taken to the rescue centre at Kirkhope with injuries or because they have been separated from their mothers for too long.',
    'The trust asks walkers to stay above the strandline, keep dogs on leads between October and January and report any pup that seems to be alone rather than approaching it. A mother often leaves a pup on the beach for hours while she feeds offshore.',
  ],
};
