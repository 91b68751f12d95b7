// Every visible string of the page, one table per language. A string may
// hold `{name}` placeholders, filled by `t(key, params)`.

/** @typedef {'en' | 'ne'} Lang */

const en = {
  title: 'Bagh-Chal',
  tagline: 'The Nepali hunt game: four tigers against twenty goats.',
  switchLanguage: 'नेपाली',
  switchLanguageLabel: 'नेपालीमा हेर्नुहोस् (Nepali)',
  skipToBoard: 'Skip to the content',

  // Home
  newTableHeading: 'Create a table',
  opponentLegend: 'Opponent',
  opponentFriend: 'A friend',
  opponentComputer: 'The computer',
  opponentBots: 'Watch the computer play itself',
  sideLegend: 'Your side',
  sideGoatsFirst: 'Goats (move first)',
  sideTigers: 'Tigers',
  levelLabel: 'Computer level',
  levelHint: 'From 400 to 2400 in steps of 100; the labels are approximate.',
  spectatorsLabel: 'Spectator seats',
  spectatorsHint: 'People who can watch through the spectator link, 0 to 12.',
  options: 'Options',
  goatsToWinLabel: 'Goats the tigers must eat',
  goatsToWinDefault: 'Standard (5; 4 with three tigers)',
  firstLabel: 'Who moves first',
  multiJumpLabel: 'Multiple capture jumps in one turn',
  threeTigersLabel: 'Three tigers and sixteen goats',
  repetitionLabel: 'Repeated positions',
  repetitionForbid: 'Forbidden (house rule)',
  repetitionThreefold: 'Third repetition is a draw',
  plyLimitLabel: 'Half moves before a draw',
  create: 'Create the table',
  creating: 'Creating…',
  howToPlay: 'Click a gold point to place a goat. To move, select one of your pieces, then a gold destination. Arrow keys move between points; Enter or Space activates a point.',
  resumeHeading: 'Your tables in this browser',
  resume: 'Return to table {table}',

  // Table
  boardLabel: 'Board',
  you: 'you',
  goats: 'Goats',
  tigers: 'Tigers',
  goat: 'goat',
  tiger: 'tiger',
  empty: 'empty',
  selected: 'selected',
  canPlace: 'you can place here',
  canMoveHere: 'you can move here',
  canJumpHere: 'you can jump here',
  canMove: 'can move',
  stopHere: 'end the jumps here',
  legalHint: 'the side to move can go here',
  turnOf: '{side} to move',
  yourTurn: 'Your turn ({side})',
  opponentTurn: 'Waiting for {side}',
  phasePlacement: 'placement',
  phaseMovement: 'movement',
  phase: 'Phase',
  inHand: 'Goats in hand',
  eaten: 'Goats eaten',
  trapped: 'Tigers trapped',
  ply: 'Half moves',
  moves: 'Moves',
  noMoves: 'No moves yet.',
  seats: 'Seats',
  rules: 'Rules: {list}',
  rulesHouse: 'house rules',
  rulesTarget: '{n} goats to win',
  rulesTigersFirst: 'tigers move first',
  rulesMultiJump: 'multiple jumps',
  rulesThreeTigers: 'three tigers',
  rulesThreefold: 'threefold repetition draws',
  rulesPlyLimit: 'draw after {n} half moves',
  drawOfferPending: '{side} offer a draw.',
  connected: 'connected',
  disconnected: 'not connected',
  computerLevel: 'computer, level {level}',
  spectatorsCount: 'Spectators: {n} of {seats}',
  noSpectatorSeats: 'No spectator seats',
  game: 'Game {n}',
  tally: 'Tally: you {mine}, opponent {theirs}, draws {draws}',
  tallyNeutral: 'Tally: host {host}, guest {guest}, draws {draws}',
  eatenPile: 'Eaten goats',
  status: 'Game status',
  actions: 'Actions',
  resign: 'Resign',
  resignConfirm: 'Resign this game?',
  resignYes: 'Yes, resign',
  resignNo: 'Keep playing',
  offerDraw: 'Offer a draw',
  drawOffered: 'You offered a draw.',
  drawOfferedToYou: 'Your opponent offers a draw.',
  acceptDraw: 'Accept the draw',
  declineDraw: 'Decline',
  rematch: 'Rematch (sides swapped)',
  rematchAccept: 'Accept the rematch',
  rematchAsked: 'Rematch asked; waiting for your opponent.',
  rematchOfferedToYou: 'Your opponent asks for a rematch.',
  newTable: 'New table',
  links: 'Links',
  linksPrivate: 'Invitation links are private: anyone who has one takes its seat. Send each only to the person it is for.',
  opponentLink: 'Opponent link',
  spectatorLink: 'Spectator link',
  copy: 'Copy',
  copyOpponentLink: 'Copy the opponent link',
  copySpectatorLink: 'Copy the spectator link',
  copied: 'Copied',
  copyFailed: 'Select the link and copy it',
  waitingForOpponent: 'Waiting for your opponent to open the link.',
  spectating: 'You are watching. Nothing you do here changes the game.',
  showHints: 'Show where the side to move can go',
  reconnecting: 'Connection lost. Reconnecting…',
  connecting: 'Connecting…',
  online: 'Connected',

  // Announcements
  announcePlace: '{side}: goat placed on {to}',
  announceStep: '{side}: {from} to {to}',
  announceJump: '{side}: {from} jumps to {to}, eating the goat on {over}',
  announceResigned: '{side} resigned',
  announceDrawOffered: '{side} offer a draw',
  announceDrawDeclined: '{side} declined the draw',
  announceRematchOffered: '{side} ask for a rematch',
  announceRematchStarted: 'Game {n} begins; sides are swapped. You play {side}.',
  announceRematchStartedNeutral: 'Game {n} begins; sides are swapped.',
  announceYourTurn: 'Your turn.',
  announceAllPlaced: 'Every goat is placed: now the goats move',

  // Results
  resultWin: '{side} win',
  resultDraw: 'Draw',
  youWon: 'You won',
  youLost: 'You lost',
  reason_capture_target: '{n} goats eaten',
  reason_tigers_trapped: 'every tiger is trapped',
  reason_goats_blocked: 'the goats have no legal move',
  reason_ply_limit: '{n} half moves played',
  reason_threefold: 'the same position came three times',
  reason_resignation: '{side} resigned',
  reason_agreement: 'agreed by both players',

  // Errors and pages
  errorHeading: 'Something went wrong',
  seatTakenHeading: 'This seat is taken',
  seatTakenText: 'Someone has already opened this opponent link and sits at the table. An invitation link works once. Ask the person who sent it for a spectator link, or create a table of your own.',
  galleryFullHeading: 'The gallery is full',
  galleryFullText: 'Every spectator seat of this table is in use. Try again when someone leaves.',
  invalidTokenHeading: 'This link is not valid',
  invalidTokenText: 'The link grants nothing at this table. Check that it was copied whole.',
  unknownTableHeading: 'No such table',
  unknownTableText: 'There is no table at this address. It may have been mistyped.',
  noSeatHeading: 'You have no seat here',
  noSeatText: 'This browser holds no seat at this table. Open the link you were sent, or create a table.',
  tryAgain: 'Try again',
  replacedHeading: 'Your seat is open elsewhere',
  replacedText: 'This seat was opened in another tab or browser, which now plays. Only one connection can hold a seat.',
  playHere: 'Play here instead',
  goHome: 'Create a table',
  notYourTurn: 'It is not your turn.',
  actionRefused: 'The server refused that: {message}',
  createFailed: 'The table could not be created: {message}',
  networkError: 'The server could not be reached.',
};

/** @type {Record<keyof typeof en, string>} */
const ne = {
  title: 'बाघचाल',
  tagline: 'नेपालको शिकार खेल: चार बाघ र बीस बाख्रा।',
  switchLanguage: 'English',
  switchLanguageLabel: 'Show in English (अङ्ग्रेजी)',
  skipToBoard: 'मुख्य भागमा जानुहोस्',

  newTableHeading: 'नयाँ टेबल बनाउनुहोस्',
  opponentLegend: 'प्रतिद्वन्द्वी',
  opponentFriend: 'साथी',
  opponentComputer: 'कम्प्युटर',
  opponentBots: 'कम्प्युटर आफैँसँग खेलेको हेर्नुहोस्',
  sideLegend: 'तपाईंको पक्ष',
  sideGoatsFirst: 'बाख्रा (पहिले चाल्छन्)',
  sideTigers: 'बाघ',
  levelLabel: 'कम्प्युटरको स्तर',
  levelHint: '४०० देखि २४०० सम्म, १०० को फरकमा; स्तरहरू अनुमानित हुन्।',
  spectatorsLabel: 'दर्शकका सिट',
  spectatorsHint: 'दर्शक लिङ्कबाट हेर्न सक्ने मानिस, ० देखि १२ सम्म।',
  options: 'विकल्पहरू',
  goatsToWinLabel: 'बाघले खानुपर्ने बाख्रा',
  goatsToWinDefault: 'सामान्य (५; तीन बाघ भए ४)',
  firstLabel: 'पहिले को चाल्छ',
  multiJumpLabel: 'एकै पालोमा धेरै पटक नाघ्न पाइने',
  threeTigersLabel: 'तीन बाघ र सोह्र बाख्रा',
  repetitionLabel: 'दोहोरिएका स्थिति',
  repetitionForbid: 'निषेध (घरको नियम)',
  repetitionThreefold: 'तेस्रो पटक दोहोरिए बराबरी',
  plyLimitLabel: 'बराबरी हुनुअघिका आधा चाल',
  create: 'टेबल बनाउनुहोस्',
  creating: 'बनाउँदै…',
  howToPlay: 'बाख्रा राख्न सुनौलो बिन्दु थिच्नुहोस्। चाल्न, आफ्नो गोटी छानेर सुनौलो बिन्दु थिच्नुहोस्। तीर कुञ्जीले बिन्दुहरूमा सारिन्छ; Enter वा Space ले बिन्दु थिच्छ।',
  resumeHeading: 'यो ब्राउजरका तपाईंका टेबल',
  resume: 'टेबल {table} मा फर्कनुहोस्',

  boardLabel: 'पाटी',
  you: 'तपाईं',
  goats: 'बाख्रा',
  tigers: 'बाघ',
  goat: 'बाख्रा',
  tiger: 'बाघ',
  empty: 'खाली',
  selected: 'छानिएको',
  canPlace: 'यहाँ राख्न सकिन्छ',
  canMoveHere: 'यहाँ चाल्न सकिन्छ',
  canJumpHere: 'यहाँ नाघ्न सकिन्छ',
  canMove: 'चाल्न सकिन्छ',
  stopHere: 'नाघ्न यहीँ रोक्नुहोस्',
  legalHint: 'चाल्ने पक्ष यहाँ जान सक्छ',
  turnOf: '{side} को पालो',
  yourTurn: 'तपाईंको पालो ({side})',
  opponentTurn: '{side} को पर्खाइ',
  phasePlacement: 'राख्ने चरण',
  phaseMovement: 'चाल्ने चरण',
  phase: 'चरण',
  inHand: 'हातमा बाख्रा',
  eaten: 'खाइएका बाख्रा',
  trapped: 'अड्किएका बाघ',
  ply: 'आधा चाल',
  moves: 'चालहरू',
  noMoves: 'अहिलेसम्म कुनै चाल छैन।',
  seats: 'सिटहरू',
  rules: 'नियम: {list}',
  rulesHouse: 'घरका नियम',
  rulesTarget: 'जित्न {n} बाख्रा',
  rulesTigersFirst: 'बाघ पहिले चाल्छन्',
  rulesMultiJump: 'धेरै पटक नाघ्न पाइने',
  rulesThreeTigers: 'तीन बाघ',
  rulesThreefold: 'तीन पटक दोहोरिए बराबरी',
  rulesPlyLimit: '{n} आधा चालपछि बराबरी',
  drawOfferPending: '{side} ले बराबरीको प्रस्ताव गरेका छन्।',
  connected: 'जोडिएको',
  disconnected: 'जोडिएको छैन',
  computerLevel: 'कम्प्युटर, स्तर {level}',
  spectatorsCount: 'दर्शक: {seats} मध्ये {n}',
  noSpectatorSeats: 'दर्शकका सिट छैनन्',
  game: 'खेल {n}',
  tally: 'नतिजा: तपाईं {mine}, प्रतिद्वन्द्वी {theirs}, बराबरी {draws}',
  tallyNeutral: 'नतिजा: आयोजक {host}, पाहुना {guest}, बराबरी {draws}',
  eatenPile: 'खाइएका बाख्रा',
  status: 'खेलको अवस्था',
  actions: 'कार्यहरू',
  resign: 'हार मान्नुहोस्',
  resignConfirm: 'यो खेलमा हार मान्ने?',
  resignYes: 'हो, हार मान्छु',
  resignNo: 'खेलिरहन्छु',
  offerDraw: 'बराबरीको प्रस्ताव',
  drawOffered: 'तपाईंले बराबरीको प्रस्ताव गर्नुभयो।',
  drawOfferedToYou: 'प्रतिद्वन्द्वीले बराबरीको प्रस्ताव गर्नुभयो।',
  acceptDraw: 'बराबरी स्वीकार',
  declineDraw: 'अस्वीकार',
  rematch: 'फेरि खेल (पक्ष साटेर)',
  rematchAccept: 'फेरि खेल स्वीकार',
  rematchAsked: 'फेरि खेल माग्नुभयो; प्रतिद्वन्द्वीको पर्खाइ।',
  rematchOfferedToYou: 'प्रतिद्वन्द्वी फेरि खेल्न चाहनुहुन्छ।',
  newTable: 'नयाँ टेबल',
  links: 'लिङ्कहरू',
  linksPrivate: 'निम्तो लिङ्क गोप्य हुन्: लिङ्क पाउने जो कोहीले त्यसको सिट लिन्छ। जसका लागि हो उसैलाई मात्र पठाउनुहोस्।',
  opponentLink: 'प्रतिद्वन्द्वी लिङ्क',
  spectatorLink: 'दर्शक लिङ्क',
  copy: 'प्रतिलिपि',
  copyOpponentLink: 'प्रतिद्वन्द्वी लिङ्कको प्रतिलिपि',
  copySpectatorLink: 'दर्शक लिङ्कको प्रतिलिपि',
  copied: 'प्रतिलिपि भयो',
  copyFailed: 'लिङ्क छानेर प्रतिलिपि गर्नुहोस्',
  waitingForOpponent: 'प्रतिद्वन्द्वीले लिङ्क खोल्ने पर्खाइ।',
  spectating: 'तपाईं हेर्दै हुनुहुन्छ। यहाँ केही गर्दा खेल बदलिँदैन।',
  showHints: 'चाल्ने पक्ष कहाँ जान सक्छ देखाउनुहोस्',
  reconnecting: 'सम्पर्क टुट्यो। फेरि जोड्दै…',
  connecting: 'जोड्दै…',
  online: 'जोडिएको',

  announcePlace: '{side}: {to} मा बाख्रा राखियो',
  announceStep: '{side}: {from} बाट {to}',
  announceJump: '{side}: {from} ले नाघेर {to}, {over} को बाख्रा खायो',
  announceResigned: '{side} ले हार माने',
  announceDrawOffered: '{side} ले बराबरीको प्रस्ताव गरे',
  announceDrawDeclined: '{side} ले बराबरी अस्वीकार गरे',
  announceRematchOffered: '{side} फेरि खेल्न चाहन्छन्',
  announceRematchStarted: 'खेल {n} सुरु; पक्ष साटिए। तपाईं {side}।',
  announceRematchStartedNeutral: 'खेल {n} सुरु; पक्ष साटिए।',
  announceYourTurn: 'तपाईंको पालो।',
  announceAllPlaced: 'सबै बाख्रा राखिए: अब बाख्रा चाल्छन्',

  resultWin: '{side} जिते',
  resultDraw: 'बराबरी',
  youWon: 'तपाईं जित्नुभयो',
  youLost: 'तपाईं हार्नुभयो',
  reason_capture_target: '{n} बाख्रा खाइए',
  reason_tigers_trapped: 'सबै बाघ अड्किए',
  reason_goats_blocked: 'बाख्राको कुनै चाल बाँकी छैन',
  reason_ply_limit: '{n} आधा चाल पुगे',
  reason_threefold: 'एउटै स्थिति तीन पटक आयो',
  reason_resignation: '{side} ले हार माने',
  reason_agreement: 'दुवैको सहमतिमा',

  errorHeading: 'केही बिग्रियो',
  seatTakenHeading: 'यो सिट लिइसकिएको छ',
  seatTakenText: 'कसैले यो प्रतिद्वन्द्वी लिङ्क खोलिसक्नुभयो र टेबलमा बस्नुभएको छ। निम्तो लिङ्क एक पटक मात्र चल्छ। पठाउनेसँग दर्शक लिङ्क माग्नुहोस्, वा आफ्नै टेबल बनाउनुहोस्।',
  galleryFullHeading: 'दर्शक सिट भरिए',
  galleryFullText: 'यो टेबलका सबै दर्शक सिट भरिएका छन्। कोही गएपछि फेरि प्रयास गर्नुहोस्।',
  invalidTokenHeading: 'यो लिङ्क मान्य छैन',
  invalidTokenText: 'यो लिङ्कले यो टेबलमा केही दिँदैन। लिङ्क पूरा प्रतिलिपि भएको छ कि हेर्नुहोस्।',
  unknownTableHeading: 'यस्तो टेबल छैन',
  unknownTableText: 'यो ठेगानामा कुनै टेबल छैन। ठेगाना गलत लेखिएको हुन सक्छ।',
  noSeatHeading: 'यहाँ तपाईंको सिट छैन',
  noSeatText: 'यो ब्राउजरसँग यो टेबलको सिट छैन। तपाईंलाई पठाइएको लिङ्क खोल्नुहोस्, वा टेबल बनाउनुहोस्।',
  tryAgain: 'फेरि प्रयास',
  replacedHeading: 'तपाईंको सिट अर्कै ठाउँमा खुलेको छ',
  replacedText: 'यो सिट अर्को ट्याब वा ब्राउजरमा खुल्यो, अब त्यहीँबाट खेलिन्छ। एउटा सिटमा एउटै जडान मात्र रहन्छ।',
  playHere: 'यहीँबाट खेल्नुहोस्',
  goHome: 'टेबल बनाउनुहोस्',
  notYourTurn: 'तपाईंको पालो होइन।',
  actionRefused: 'सर्भरले मानेन: {message}',
  createFailed: 'टेबल बन्न सकेन: {message}',
  networkError: 'सर्भरसम्म पुग्न सकिएन।',
};

/** @typedef {keyof typeof en} StringKey */

/** @type {Record<Lang, Record<StringKey, string>>} */
export const STRINGS = { en, ne };

/** The languages offered, in the order of the switch. */
export const LANGS = /** @type {const} */ (['en', 'ne']);

/** @type {Lang} */
let current = 'en';

/** @returns {Lang} */
export function lang() {
  return current;
}

/** @param {Lang} l */
export function setLang(l) {
  current = l;
}

const NEPALI_DIGITS = '०१२३४५६७८९';

/**
 * Formats a number in the current language's digits.
 * @param {number} n
 */
export function num(n) {
  const s = String(n);
  return current === 'ne' ? s.replace(/[0-9]/g, (d) => NEPALI_DIGITS[Number(d)]) : s;
}

/**
 * The string `key` in the current language, with `{name}` placeholders
 * filled from `params` (numbers in the language's digits).
 * @param {StringKey} key
 * @param {Record<string, string | number>} [params]
 */
export function t(key, params) {
  const s = STRINGS[current][key];
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (whole, name) => {
    const v = params[name];
    if (v === undefined) return whole;
    return typeof v === 'number' ? num(v) : v;
  });
}
