export const site = {
  name: 'Field & Fathom',
  tagline: 'A magazine of the living coast',
  sections: ['Features', 'Field notes', 'Expeditions', 'Photography', 'Shop'],
  footer: ['About the magazine', 'Contributors', 'Stockists', 'Terms of use'],
  footnote: 'Field & Fathom is an independent quarterly.',
};

export const feature = {
  kicker: 'Feature',
  title: 'The divers replanting a kelp forest one rope at a time',
  author: 'Tomasz Ellery',
  credit: 'Photographs by Ines Kowalczyk',
  blocks: [
    { p: 'Twenty metres off the point at Rosehearty Sound, a line of orange buoys marks the edge of an experiment. Beneath each one hangs a rope seeded with young sugar kelp, and on a calm morning in September three divers drop down to check whether the plants have held.' },
    { p: 'The sound lost most of its kelp in the decade after 2010. Warm summers weakened the plants, and sea urchins that had once been kept in check by lobsters and crabs grazed the remaining stands down to bare rock. By 2019 a survey found fewer than one plant in twenty where the forest had been.' },
    { h2: 'Rope, spores and patience' },
    { p: 'The replanting began in a shed behind the harbour, where volunteers soak lengths of twine in water thick with kelp spores and keep them in cold tanks for six weeks. When the seedlings are a few millimetres long, the twine is wound around heavier rope and carried out to the moorings.' },
    { p: 'Not all of it works. Storms tore away a third of the ropes in the first winter, and urchins found the lowest ones within days. The divers now hang the ropes higher in the water and clear urchins from the rock beneath by hand, filling mesh bags that are emptied far out in the sound.' },
    { h2: 'What grows back' },
    { p: 'Three years in, the plants on the surviving ropes have begun to release spores of their own, and small wild kelp has appeared on boulders close to the moorings. Fish counts along the line have risen, and the divers report pollack and wrasse sheltering among the fronds.' },
  ],
  last: 'Nobody involved expects the forest to return as it was. “We are not rebuilding the old forest,” said Hannah Sorensen, who leads the dives. “We are giving the sound enough kelp that it can start doing the work itself.”',
};
