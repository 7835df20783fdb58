export const site = {
  name: 'Le Veilleur de Loire',
  tagline: 'L’actualité de l’estuaire, chaque matin',
  sections: ['Estuaire', 'Économie', 'Environnement', 'Culture', 'Sports'],
  footer: ['Mentions légales', 'Nous contacter', 'Charte de la rédaction', 'Gestion des cookies'],
  footnote: 'Le Veilleur de Loire est édité par la coopérative Presse de l’Estuaire.',
};

export const article = {
  rubrique: 'Environnement',
  titre: 'Dans les marais de Bourgneuf, de jeunes paludiers relancent la récolte du sel',
  auteur: 'Solène Marchetti-Diallo',
  date: '28 novembre 2026',
  blocs: [
    { p: 'Il y a dix ans, la moitié des œillets du marais de la Croix-Rouge étaient à l’abandon, envahis par les roseaux. Cet automne, quatorze paludiers y ont récolté près de deux cents tonnes de gros sel et de fleur de sel, un record depuis la création de leur coopérative.' },
    { p: 'La plupart d’entre eux ont moins de quarante ans et ne viennent pas du métier. Ancienne infirmière, ancien informaticien ou fils d’ostréiculteur, ils ont suivi la formation de deux ans proposée par le lycée agricole de Machecoul avant de reprendre des salines laissées vacantes par des départs à la retraite.' },
    { h2: 'Un métier de patience' },
    { p: 'Le travail commence au printemps, quand il faut curer les bassins et refaire les talus abîmés par les tempêtes d’hiver. La récolte dépend ensuite entièrement du soleil et du vent : un été pluvieux peut réduire la production de moitié, comme en 2021.' },
    { p: 'Pour limiter ce risque, la coopérative vend désormais une partie de son sel à des restaurants et à des épiceries fines de la région, qui acceptent des prix fixés à l’avance pour trois ans. Elle a aussi ouvert une boutique sur le port, où les visiteurs peuvent suivre une récolte en été.' },
  ],
};
