/**
 * Reading what a customer wrote, as pure rules: is it a promise to pay (explicit commitment words
 * with a date we can place within PROMISE_HORIZON_DAYS of the message, or an amount), a complaint
 * about the bill (a proposed dispute), a question that needs an answer, or none of these. Only the
 * customer's own words are read: quoted history, forwarded mail and signatures are cut first. A
 * reading carries the sentence it came from, so a person can see why and correct it.
 */
import { addDays, isValidDate, monthEnd } from '../dates';
import type { ReadingKind } from '../db/schema';

export type { ReadingKind };
export const READING_KINDS = ['promise', 'dispute', 'needs_answer', 'none'] as const satisfies readonly ReadingKind[];

export interface ReplyReading {
  kind: ReadingKind;
  /** A promise's date (YYYY-MM-DD); null for an amount-only promise and for the other kinds. */
  date: string | null;
  /** A promise's amount in minor units, when the sentence names one. */
  amount: number | null;
  /** The sentence the reading came from; null for 'none'. */
  sentence: string | null;
}

/** A promised date further out than this from the message is not a promise we hold the chase for. */
export const PROMISE_HORIZON_DAYS = 120;
const SENTENCE_MAX = 500;
/** What is read of a reply: its opening words, where people say what they mean (a reply is up to 20,000 characters of anyone's text). */
const READ_MAX_CHARS = 8_000;
const READ_MAX_SENTENCES = 200;

const NONE: ReplyReading = { kind: 'none', date: null, amount: null, sentence: null };

// Where the customer's own words end: a quote header, an Outlook header block, a forward, a signature.
const CUT_LINE = [
  /^\s*On\b.{0,250}\bwrote:\s*$/i,
  /^\s*On\s.{0,200}$(?=\n.{0,120}wrote:\s*$)/im,
  /^\s*-{2,}\s*(Original Message|Forwarded message|Ursprüngliche Nachricht|Message d'origine)\s*-{2,}/i,
  /^\s*Begin forwarded message:?/i,
  /^\s*_{8,}\s*$/,
  /^\s*From:\s.+$/i,
  /^\s*(Le|Am|El|Il)\s.{5,200}\s(a écrit|schrieb|escribió|ha scritto)\s*:\s*$/i,
  /^--\s*$/,
  /^\s*Sent from my\b/i,
  /^\s*(CONFIDENTIAL|DISCLAIMER|This (e-?mail|message)( and any attachments)? (is|may contain|contains))/i,
];

/** The customer's own words: lines before the first quote, forward or signature; quoted lines dropped. */
export function ownWords(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const next = lines[i + 1] ?? '';
    if (CUT_LINE.some((re) => re.test(line))) break;
    // "On Tue, Nov 24, 2026 at 9:14 AM Dana <dana@x.com>" with "wrote:" wrapped to the next line.
    if (/^\s*On\s/i.test(line) && /^\s*(<[^>]*>\s*)?wrote:\s*$/i.test(next)) break;
    if (/^\s*>/.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n').trim();
}

/** Sentences of a text: paragraphs joined (mail is hard-wrapped), split after . ! ? and at blank lines and list items. */
export function sentencesOf(text: string): string[] {
  return text
    .split(/\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)])\s)/)
    .flatMap((para) => para.replace(/\s*\n\s*/g, ' ').split(/(?<=[.!?])\s+(?=["'(]?[A-Z0-9])/))
    .map((s) => s.trim())
    .filter((s) => /[a-z]/i.test(s));
}

/** Verbs that mean paying whatever follows them: "we will pay", "I'll remit Friday". */
const PAY_VERB = String.raw`(?:pay|settle|remit|wire|transfer)`;
const PAYING = String.raw`(?:paying|settling|remitting|wiring|transferring)`;
/**
 * Verbs that mean paying only with the money as their object: "send the check", "make the
 * payment", "get it paid", "send it Friday"; "send the W-9", "process your credit application"
 * and "send it to AP" are other errands.
 */
const CARRY_VERB = String.raw`(?:send|cut|release|process|mail|issue|clear|make|do|initiate|submit|get|have|put)`;
const CARRYING = String.raw`(?:sending|cutting|releasing|processing|mailing|issuing|making|doing|initiating|submitting|getting|putting)`;
/** What is paid with: the money itself, whatever carries it; not the papers about it ("remittance advice", "payment terms"). */
const MONEY_NOUN = String.raw`(?:payments?|checks?|cheques?|transfers?|wires?|ach|eft|remittance|funds|money|balance|amount|sum|the rest|the remainder)(?!\s*(?:advice|form|forms|details?|info|information|slip|address|instructions|portal|terms|plans?|proposal|dates?|schedule|status|confirmation|reference|number|sheet|request|history|report|receipt|records?|copy|stub|template|polic(?:y|ies)|process|system|team|department|person|contact|question|issue)\b)`;
const AMOUNT_WORDS = String.raw`(?:[$€£]\s?\d|\b(?:usd|eur|gbp|cad|aud)\s?\d|\b\d[\d,.]*\s?(?:usd|eur|gbp|cad|aud|dollars|euros?)\b)`;
/** When, right after the verb: "send it Friday", "get this out by the 15th". */
const WHEN = String.raw`(?:today|tonight|tomorrow|no later|first thing|within|(?:on|by|before)\s+(?!it\b|this\b(?!\s+\w+day)|that\b)|(?:this|next|coming)\s+(?:week|month|\w+day)|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b`;
/** What follows a carrying verb for it to mean paying: the money a few words on, the bill got paid or out, or nothing but when. */
const CARRY_OBJECT = String.raw`(?:(?:\s+(?:you|out|over|off|through|in))?(?:\s+(?:the|a|an|our|your|full|final|first|second|partial|remaining|outstanding|open|total|last|bank|of|for))*\s+(?:${MONEY_NOUN}|${AMOUNT_WORDS})|\s+(?:it|this|that|them|these|(?:the\s+)?invoices?|inv[-\s]?\d[\w-]*)\s+(?:paid|processed|out|over|settled|released|through)\b|(?:\s+(?:it|this|that|them))?(?:\s+(?:out|over|off|through))?(?:\s+to\s+you)?\s+${WHEN})`;
const PAYS = String.raw`(?:${PAY_VERB}\b|${CARRY_VERB}${CARRY_OBJECT})`;
const GREETING = String.raw`(?:(?:hi|hello|ok|okay|thanks|sure|yes)[,!.]?\s+)?`;
/**
 * What is paid, as the subject of what happens to it: the money or the bill a few words before
 * ("the payment for October is scheduled"), a pronoun right before ("it is scheduled"; "I was told
 * that the audit is scheduled" is about the audit).
 */
const PAID_SUBJECT = String.raw`(?:\b${MONEY_NOUN}\b[^?!]{0,60}?|\b(?:invoice|inv[-\s]?\d[\w-]*)\b[^.?!;]{0,30}?|\b(?:it|this|that)\s+)`;
/** What happens to money that is being paid. */
const MONEY_PASSIVE = String.raw`(?:paid|sent|released|processed|issued|mailed|wired|transferred|remitted|settled|cleared|made|initiated|scheduled|effected|executed|done|do|credited|cut|go(?:ing)? out|arrive|reach you|land|hit your account|be in your account|follow)`;
/** What happens to a bill that is being paid (a bill "sent" or "forwarded" is only passed on). */
const BILL_PASSIVE = String.raw`(?:paid|released|processed|remitted|settled|cleared|scheduled|wired|transferred|go(?:ing)? out|be in your account)`;

/** Words that commit to paying: a promise needs one of these. */
const COMMITMENT = [
  // The subject left out: "Will pay Friday", "Paying Monday", "Sending a check for $750".
  new RegExp(String.raw`^${GREETING}(?:(?:will|shall|going to)\s+(?:\w+\s+)?${PAYS}|${PAYING}\b|${CARRYING}${CARRY_OBJECT})`, 'i'),
  new RegExp(String.raw`\b(?:we|i)(?:['’](?:re|m)| are| am) (?:going to\s+(?:\w+\s+)?${PAYS}|${PAYING}\b|${CARRYING}${CARRY_OBJECT})`, 'i'),
  /\byou(?:['’]re| are) in (?:the|our|this|next|friday|thursday)\b/i,
  new RegExp(String.raw`\b(?:we|i|our (?:team|office|accounts payable|ap|finance)|ap|accounting|finance)\b[^.?!]{0,40}?(?:\b(?:will|shall|are going to|am going to|is going to|plan to|intend to|expect to|are able to|can)|['’]ll)\s+(?:\w+\s+){0,2}?${PAYS}`, 'i'),
  new RegExp(String.raw`\b${MONEY_NOUN}\b[^?!]{0,60}?\b(?:will|shall|should|is going to|are going to)\s+(?:be\s+)?${MONEY_PASSIVE}\b`, 'i'),
  new RegExp(String.raw`\b(?:(?:invoice|inv[-\s]?\d[\w-]*)\b[^.?!;]{0,30}?|(?:it|this|that)\s+)(?:will|shall|should|is going to|are going to)\s+(?:be\s+)?${BILL_PASSIVE}\b`, 'i'),
  new RegExp(String.raw`\b(?:it|this|that|invoice|inv[-\s]?\d[\w-]*)['’]ll\s+(?:be\s+)?${BILL_PASSIVE}\b`, 'i'),
  new RegExp(String.raw`${PAID_SUBJECT}(?:is|are|has been|have been|was)\s+(?:now\s+)?(?:scheduled|approved|queued|set up|booked|planned|lined up)\b`, 'i'),
  // A transfer "is done tomorrow": the present for the future, placed by its date.
  new RegExp(String.raw`\b(?:payment|transfer|wire|ach|check|cheque)\b[^?!]{0,20}?\b(?:is|are)\s+(?:done|made|sent|released)\b`, 'i'),
  /\bscheduled (?:for )?(?:payment|to (?:be )?(?:pay|paid|go out|release|send|sent))\b/i,
  new RegExp(String.raw`${PAID_SUBJECT}(?:(?:is|are|was|will be|has been)\s+)?(?:scheduled|planned|set|booked)\s+(?:for|on)\b`, 'i'),
  new RegExp(String.raw`${PAID_SUBJECT}(?:goes|go|going|will go|is going|['’]ll go) out\b`, 'i'),
  /\bin (?:our|the|next|this)\b[^.?!]{0,25}\b(?:check|cheque|payment|ach|pay|vendor|supplier|payables)\s+(?:run|cycle|batch|release)\b/i,
  new RegExp(String.raw`\byou(?:['’]ll| will| should) (?:have|receive|get|see)\s+(?:(?:the|a|an|our|your|full|first|final)\s+)?(?:${MONEY_NOUN}|${AMOUNT_WORDS}|it|this|that|them)\b`, 'i'),
  // Non-native present tense for the future: "we make the payment on 5 December", "I transfer the money Monday".
  new RegExp(String.raw`\b(?:we|i)\s+(?:make|do|send|transfer|pay|wire|remit)\s+(?:the\s+)?(?:payment|transfer|money|amount|balance|it)\b|\b(?:we|i)\s+pay\s+(?:the\s+)?invoice\b`, 'i'),
  /\bpayment (?:is )?planned (?:for|on)\b/i,
];

/**
 * Money coming to the writer ("once our client pays us", "our customer will pay us on the 15th and
 * we will pay you after"): what the writer then pays waits on someone else, so it is no promise.
 */
const PAID_TO_WRITER = /\b(?:pays?|paid|paying|pay\s+out\s+to)\s+(?:us|me)\b/i;

/** A commitment turned down: "we cannot pay", "won't be able to pay until". */
const REFUSAL = new RegExp(String.raw`\b(?:can['’]?t|cannot|can not|won['’]?t|will not|wont|unable to|not able to|not going to|refuse to|don['’]?t (?:plan|intend|expect) to|do not (?:plan|intend|expect) to|no way)\s+(?:\w+\s+){0,3}?(?:${PAY_VERB}|${CARRY_VERB}|paid|be paid|approve|authori[sz]e)\b`, 'i');

/**
 * A hedge takes the commitment out of the words: the writer hopes, tries, thinks or may, rather
 * than will ("we should be able to pay Friday", "hopefully next week", "I think it goes out
 * Monday"). Commitment language states what will happen; hedged language reports a wish or a guess.
 */
const HEDGE = /\b(?:hopefully|hope(?:s|d)? to|hoping(?: to)?|(?:we|i) hope|try(?:ing)? to|will try|['’]ll try|do (?:our|my) best|attempt(?:ing)? to|aim(?:ing)? to|might|may (?:be able|pay|send|get|process|release|transfer|wire|go)|possibly|probably|perhaps|maybe|should be able to|(?:i|we) (?:think|believe|guess|assume|reckon)|not (?:sure|certain)|if possible|if all goes well|fingers crossed|ideally|tentatively)\b/i;

/**
 * A commitment to do something other than pay, about the payment: to ask, check, confirm or find
 * out ("I'll ask AP to release it Friday", "I will confirm the payment date by Monday", "let me
 * check when the transfer goes out"). The writer promises an answer, not the money. A check with
 * an article is the money ("sending a check toward the payment").
 */
/** A confirmation made, not promised: "Confirming that INV-1 is scheduled for our ACH run on Friday" states the schedule. */
const CONFIRMED = /^(?:(?:hi|hello|dear)\b[^,]{0,40},\s*)?(?:just\s+|this is to\s+|writing to\s+)?(?:confirming|to confirm|confirm)(?:\s+that)?[,:]?\s+/i;

const DEFERRAL = /\b(?:ask(?:ing)?|(?<!\b(?:a|the|our|your|my|this|each)\s)check(?:ing)?(?! (?:is|was|will|goes|went|run))|confirm(?:ing)?|find(?:ing)? out|let you know|get(?:ting)? back to you|look(?:ing)? into|follow(?:ing)? up|see (?:if|whether|when)|verify|chase|remind|push(?:ing)?|talk(?:ing)? (?:to|with)|speak(?:ing)? (?:to|with)|forward(?:ing)?|escalat(?:e|ing)|rais(?:e|ing) (?:it|this))\b[^.?!;]{0,60}?\b(?:pay|paid|paying|payment|release|transfer|wire|remit|check run|process|ach)\b/i;

/** A commitment that waits on something else: "once we receive the credit memo", "if approved", "before I pay". */
const CONDITION = /\b(?:if|once|unless|provided(?: that)?|pending|subject to|as soon as (?:we|i|you) (?:get|receive|have|hear)|after (?:we|i) (?:get|receive|have|hear)|after (?:you|the)\b[^.?!]{0,30}\b(?:send|fix|correct|credit|issue|confirm)|before (?:we|i) (?:pay|can pay|release|send)|until (?:we|i|you|the)\b)/i;

/** A complaint about the bill: becomes a proposed dispute, never a promise. */
const COMPLAINT = [
  /\b(?:charged|billed|invoiced)\s+(?:us\s+|me\s+)?(?:twice|double|two times|2x)\b/i,
  /\bdouble[-\s]?(?:charged|billed|billing|charge)\b/i,
  /\bduplicate(?:d)?\s+(?:invoice|charge|billing|bill|payment|entry)\b/i,
  /\b(?:invoice|charge|bill)\s+(?:is|was|looks)\s+(?:a\s+)?duplicate\b/i,
  /\bover[-\s]?(?:charged|charge|billed|billing|invoiced)\b/i,
  /\b(?:wrong|incorrect|inaccurate)\s+(?:amount|price|pricing|rate|total|quantity|qty|invoice|po|address|customer|tax|figure|hours)\b/i,
  /\b(?:amount|price|pricing|rate|total|quantity|invoice|tax|figure)\s+(?:is|are|was|seems|looks)\s+(?:wrong|incorrect|off|too high|not right|not correct)\b/i,
  /\b(?:does ?n['’]?t|do ?n['’]?t|does not|do not|did not|didn['’]?t)\s+(?:match|agree with|reflect)\b/i,
  /\bdiscrepanc(?:y|ies)\b/i,
  /\b(?:never|not|haven['’]?t|have not|didn['’]?t|did not)\s+(?:yet\s+)?(?:received|receive|got|get|ordered|order|agreed|authori[sz]ed|approved|delivered)\s+(?:the\s+|any\s+|these\s+|this\s+|those\s+|our\s+)?(?:(?:first|second|third|last|final|other|rest of the|remaining|full|whole|new|replacement)\s+)?(?:goods|service|services|work|parts|items|order|shipment|delivery|product|products|materials|equipment|repair|visit|this|that|it|them)\b(?!\s+(?:invoice|bill|statement|e-?mail|copy))/i,
  /\bnever (?:received|got|arrived|delivered|showed up|came|finished|completed)\b(?!\s+(?:this|the|your|an|any|that)\s+(?:invoice|bill|statement|e-?mail|copy))/i,
  /\b(?:not|wasn['’]?t|was not|never)\s+(?:been\s+)?(?:finished|completed|done|installed|fixed)\b/i,
  /\bno record of\b/i,
  /\b(?:is ?n['’]?t|is not|not yet|wasn['’]?t|was not)\s+due\b/i,
  /\b(?:corrected|revised|amended)\s+invoice\b/i,
  /\bduplicate of\b/i,
  /\b(?:invoice|charge|bill|charged|billed)\b[^?!]{0,20}\b(?:2|two) times\b/i,
  /\b(?:billed|charged|invoiced)\s+(?:us\s+)?for\b[^?!]{0,60}\bbut\b/i,
  /\b(?:won['’]?t|will not|refuse to|not going to)\s+pay\s+(?:this|that|it|for|the|any)\b/i,
  /\b(?:do ?n['’]?t|do not|does not|doesn['’]?t) have (?:a |any )?(?:contract|account|agreement|order|po)s? with\b/i,
  /\b(?:damaged|defective|broken|faulty|crushed|missing items|missing parts|short[-\s]?shipped|not as described|not what we ordered)\b/i,
  /\bdisput(?:e|ed|ing)\b/i,
  // Goods sent back: the bill is owed less what was returned.
  /\breturned\s+(?:\d+\s+|two\s+|three\s+|the\s+|some\s+)?(?:units|items|goods|parts|products|materials|pallets|cases|boxes|pieces)\b|\b(?:units|items|goods|parts|products|materials|pallets|cases|boxes|pieces)\s+(?:were|was|have been|had been)\s+returned\b/i,
  /\bcredit (?:memo|note)\b/i,
  /\brefund\b/i,
  /\b(?:already|previously)\s+(?:been\s+)?(?:paid|settled|sent (?:the )?payment)\b/i,
  /\b(?:we|i)\s+(?:have\s+|had\s+)?paid\s+(?:this|that|it|the invoice|inv[-\s]?\d[\w-]*)\s+(?:already|in full|on|last)\b/i,
  /\bcancel(?:l?ed)?\s+(?:the|our|this)\s+(?:order|service|contract|subscription|account)\b/i,
  /\b(?:not|wasn['’]?t|was not|isn['’]?t|is not)\s+(?:our|my)\s+(?:invoice|order|account|bill)\b/i,
  /\bcharged (?:for|us for)\b[^.?!]{0,40}\b(?:we|i) (?:did ?n['’]?t|did not|never)\b/i,
];

/**
 * The customer says they have paid already: the ledger disagrees with them, so it is a proposed
 * dispute ("already paid") for someone to check, read after promises so "funds should arrive by
 * Monday" stays a promise.
 */
const PAID_CLAIM = [
  /\b(?:already|previously)\s+(?:been\s+)?(?:paid|settled|sent|mailed|wired|transferred)\b/i,
  /\bpa(?:y|id) already\b/i,
  /^(?:we\s+|i\s+)?(?:have\s+)?(?:paid|sent|mailed|wired|transferred)\s+(?:it\s+|this\s+|the payment\s+|payment\s+|the check\s+|a check\s+)?(?:yesterday|today|last|this morning|on)\b/i,
  /\b(?:we|i)\s+(?:have\s+|had\s+)?(?:paid|sent|mailed|wired|transferred|settled)\s+(?:the\s+|our\s+|a\s+)?(?:payment|check|cheque|invoice|balance|this|that|it|money|funds)\b/i,
  /\b(?:payment|check|cheque|transfer|wire|it|this|invoice)\s+(?:was|were|has been|have been)\s+(?:already\s+)?(?:paid|sent|made|mailed|wired|settled|processed)\b/i,
  /\b(?:check|cheque|payment) (?:is )?in the mail\b/i,
  /\b(?:receive|received|get|got)\s+(?:our|my)\s+(?:payment|check|cheque|transfer|wire)\b/i,
];

/** Not a question, but someone must answer: the contact is wrong, or an offer waits on us. */
const NEEDS_ANSWER = [
  /\bno longer (?:work|with)\b|\bstop (?:emailing|sending|contacting)\b|\bwrong (?:person|contact|e-?mail address)\b/i,
  /\b(?:we|i) (?:can|could|would|will)\b[^?!]{0,60}\b(?:if|once|provided) you\b/i,
  /\bnever (?:received|got) (?:this|the|your|an|any|that) (?:invoice|bill|statement|copy)\b/i,
];

/** A question about the bill or a request to us: the reply needs an answer. */
const REQUEST = /\b(?:please|pls|kindly|could you|can you|would you|will you|can someone|could someone)\b[^.?!]{0,60}\b(?:send|resend|re-send|check|confirm|verify|advise|provide|share|explain|clarify|look into|call|forward|update|email|tell|let (?:me|us) know|review|correct|fix|issue)\b/i;
const WHO = /\bwho (?:is this|are you|you are|is sending)\b|\bwhat is this (?:for|about|invoice)\b|\b(?:do ?n['’]?t|do not|don['’]?t) (?:recogni[sz]e|know what)\b|\bnot sure what this (?:is|invoice)\b/i;
/** Courtesies that end in a question mark or ask nothing about the bill. */
const COURTESY = /^(?:(?:hi|hello|dear|hey)\b[^?]{0,40}[,!]?\s*)?(?:how are you|hope (?:you|all)|hope this|how(?:'s| is) (?:it going|your)|thanks?|thank you|have a (?:good|great|nice))|let (?:me|us) know if (?:you )?(?:need|have)|if you (?:have|need) any/i;

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

let chrono: typeof import('chrono-node') | null = null;

/** chrono-node, loaded when the first commitment sentence is read: most processes read none. */
function dateParser(): typeof import('chrono-node') {
  chrono ??= require('chrono-node') as typeof import('chrono-node');
  return chrono;
}

const pad = (n: number) => String(n).padStart(2, '0');
const ymd = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`;

/** The next day-of-month `day` on or after `today` ("the 15th"). */
function nextDayOfMonth(today: string, day: number): string | null {
  let y = +today.slice(0, 4);
  let m = +today.slice(5, 7);
  for (let i = 0; i < 3; i++) {
    const date = ymd(y, m, day);
    if (isValidDate(date) && date >= today) return date;
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
  return null;
}

/** The first date on or after `today` with this month and day, when no year is written. */
function nextMonthDay(today: string, month: number, day: number, year: number | null): string | null {
  const y0 = year ?? +today.slice(0, 4);
  const first = ymd(y0, month, day);
  if (!isValidDate(first)) return null;
  return year !== null || first >= today ? first : ymd(y0 + 1, month, day);
}

/**
 * How the writer orders a numeric date like 12/4: month first in the United States and the places
 * that write as it does, either way in Canada and the Philippines (so a date that reads both ways
 * is not placed), day first everywhere else. Unknown (no ISO 3166 code): month first, the
 * ledger's home convention.
 */
export type DateOrder = 'month' | 'day' | 'either';
const MONTH_FIRST = new Set(['US', 'AS', 'GU', 'MP', 'PR', 'VI', 'UM', 'FM', 'MH', 'PW']);
const EITHER_WAY = new Set(['CA', 'PH']);

export function dateOrderOf(country: string | null | undefined): DateOrder {
  const code = country?.trim().toUpperCase() ?? '';
  if (!/^[A-Z]{2}$/.test(code) || MONTH_FIRST.has(code)) return 'month';
  return EITHER_WAY.has(code) ? 'either' : 'day';
}

/** A numeric date "a/b[/y]" as a calendar day: the order that can be a date, else the writer's; null when it stays unknown. */
function slashDate(today: string, a: number, b: number, year: number | null, order: DateOrder): string | null {
  const monthFirst = a >= 1 && a <= 12 ? nextMonthDay(today, a, b, year) : null;
  const dayFirst = b >= 1 && b <= 12 ? nextMonthDay(today, b, a, year) : null;
  if (!monthFirst || !dayFirst || monthFirst === dayFirst) return monthFirst ?? dayFirst;
  return order === 'month' ? monthFirst : order === 'day' ? dayFirst : null;
}

const dayOfWeek = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();

/**
 * A week a payment is promised in, as the day the promise is kept by: "this week" and "end of the
 * week" its Friday, "next week" next week's Friday, "next week Tuesday" / "Tuesday next week" that day.
 */
function weekDate(sentence: string, today: string): { date: string; at: number; end: number } | null {
  const now = dayOfWeek(today);
  const next = /\b(?:(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s+)?next week(?:['’]s)?(?:\s+(?:on\s+)?(sunday|monday|tuesday|wednesday|thursday|friday|saturday))?\b/i.exec(sentence);
  if (next) {
    const monday = addDays(today, ((1 - now + 7) % 7) || 7);
    const name = (next[1] ?? next[2])?.toLowerCase();
    const want = name ? WEEKDAYS.indexOf(name) : 5;
    return { date: addDays(monday, (want + 6) % 7), at: next.index, end: next.index + next[0].length };
  }
  const end = /\b(?:this week|end of (?:the |this )?week|week['’]?s end|by the weekend|this weekend)\b/i.exec(sentence);
  return end ? { date: addDays(today, (5 - now + 7) % 7), at: end.index, end: end.index + end[0].length } : null;
}

/**
 * The dates a sentence names, as calendar days, read relative to `today`: chrono's readings where
 * the day is known or implied (a weekday, "next week", "tomorrow"), and the forms chrono misses
 * ("the 15th", "end of the month", "5.12.", "within 10 days"). A bare month ("the October
 * service", "in October") names no day and is no date here.
 */
export function datesIn(sentence: string, today: string, order: DateOrder = 'month'): string[] {
  const found: string[] = [];
  const ref = new Date(`${today}T12:00:00Z`);
  const week = weekDate(sentence, today);
  if (week) found.push(week.date);
  for (const r of dateParser().parse(sentence, ref, { forwardDate: true })) {
    // Weeks are read by weekDate: chrono reads "this week" as today and "next week" as a week from today.
    if (/\bweek/i.test(r.text) || (week && r.index < week.end && r.index + r.text.length > week.at)) continue;
    // Numeric dates are read below in the writer's order; chrono reads them month first.
    if (/\d\s*\/\s*\d/.test(r.text)) continue;
    // A schedule ("every other Friday", "on Fridays") is no date.
    if (/\bevery\s+(?:other\s+|second\s+)?$/i.test(sentence.slice(0, r.index)) || /^\w+days\b/i.test(r.text)) continue;
    const s = r.start;
    const dayKnown = s.isCertain('day') || s.isCertain('weekday') || /\b(?:tomorrow|today|tonight|week|weekend|month)\b/i.test(r.text);
    if (!dayKnown) continue;
    // A bare "end of month" names the month's last day; chrono names its first of the next.
    if (/\bend of (?:the |this )?month\b/i.test(r.text)) found.push(monthEnd(today.slice(0, 7)));
    else found.push(ymd(s.get('year') ?? +today.slice(0, 4), s.get('month') ?? 1, s.get('day') ?? 1));
  }
  for (const m of sentence.matchAll(/\b(?:on|by|before|the)\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))/gi)) {
    const d = nextDayOfMonth(today, +m[1]);
    if (d) found.push(d);
  }
  for (const m of sentence.matchAll(/\b(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})?(?!\d)/g)) {
    const year = m[3] ? (m[3].length === 2 ? 2000 + +m[3] : +m[3]) : null;
    const d = nextMonthDay(today, +m[2], +m[1], year);
    if (d) found.push(d);
  }
  for (const m of sentence.matchAll(/(?<![\d/.,])(\d{1,2})\/(\d{1,2})(?:\/(\d{4}|\d{2}))?(?![\d/])/g)) {
    // A share ("1/2 now", "1/3 of the balance", "pay 1/2 on the 15th") is no date; "on 1/2" is.
    if (/^\s*(?:of|now|up\s?front|down|today|the)\b/i.test(sentence.slice(m.index + m[0].length))) continue;
    if (!m[3] && +m[1] < +m[2] && +m[2] <= 4 && !/\b(?:on|by|before|until|till|for|after|due|dated)\s*$/i.test(sentence.slice(0, m.index))) continue;
    const year = m[3] ? (m[3].length === 2 ? 2000 + +m[3] : +m[3]) : null;
    const d = slashDate(today, +m[1], +m[2], year, order);
    if (d) found.push(d);
  }
  if (/\b(?:eom|end of (?:the |this )?month|month[-\s]end)\b/i.test(sentence) && !found.length) found.push(monthEnd(today.slice(0, 7)));
  const mid = /\bmid[-\s]?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i.exec(sentence);
  if (mid) {
    const d = nextMonthDay(today, MONTHS.indexOf(mid[1].toLowerCase()) + 1, 15, null);
    if (d) found.push(d);
  }
  const month = /\b(?:in|by|before|during|until)\s+(?:the\s+month\s+of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b(?!\s*\d)/i.exec(sentence);
  if (month && !found.length) {
    // "We plan to pay in October": the promise stands until the month's last day.
    const first = nextMonthDay(today.slice(0, 8) + '01', MONTHS.indexOf(month[1].toLowerCase()) + 1, 1, null);
    if (first) found.push(monthEnd(first.slice(0, 7)));
  }
  const endOf = /\bend of (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i.exec(sentence);
  if (endOf) {
    const month = MONTHS.indexOf(endOf[1].toLowerCase()) + 1;
    const first = nextMonthDay(today, month, 1, null);
    if (first) found.push(monthEnd(first.slice(0, 7)));
  }
  const within = /\bwithin (?:the next )?(\d{1,3}|a|one|two|three|ten|fourteen|thirty) (day|days|week|weeks)\b/i.exec(sentence);
  if (within) {
    const words: Record<string, number> = { a: 1, one: 1, two: 2, three: 3, ten: 10, fourteen: 14, thirty: 30 };
    const n = words[within[1].toLowerCase()] ?? +within[1];
    found.push(addDays(today, within[2].toLowerCase().startsWith('week') ? n * 7 : n));
  }
  const weekday = /\b(?:this|next|on|by|coming)\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/i.exec(sentence);
  if (weekday && !found.length) {
    const want = WEEKDAYS.indexOf(weekday[1].toLowerCase());
    const now = new Date(`${today}T00:00:00Z`).getUTCDay();
    found.push(addDays(today, ((want - now + 7) % 7) || 7));
  }
  return [...new Set(found)].filter(isValidDate);
}

const NUMBER = String.raw`(\d{1,3}(?:[,.'\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)`;
const AMOUNT_BEFORE = new RegExp(String.raw`(?:[$€£]|\b(?:USD|EUR|GBP|CAD|AUD)\s?)\s?${NUMBER}(?!\d)`, 'gi');
const AMOUNT_AFTER = new RegExp(String.raw`\b${NUMBER}\s?(?:€|\$|USD|EUR|GBP|CAD|AUD|dollars|euros?)(?![a-z])`, 'gi');

function minorUnits(number: string): number | null {
  const raw = number.replace(/\s|'/g, '');
  // The last separator followed by one or two digits is the decimal mark.
  const decimal = /[.,](\d{1,2})$/.exec(raw);
  const whole = (decimal ? raw.slice(0, -decimal[0].length) : raw).replace(/[.,]/g, '');
  const minor = +whole * 100 + (decimal ? +decimal[1].padEnd(2, '0') : 0);
  return Number.isSafeInteger(minor) && minor > 0 ? minor : null;
}

/** The amounts a sentence names, in minor units and in the order written: "$4,250.00", "USD 1200", "1.250,50 €", "£300". */
export function amountsIn(sentence: string): number[] {
  const before = [...sentence.matchAll(AMOUNT_BEFORE)];
  // A currency on both sides ("$1,000 USD") is one amount: the one written before counts.
  const after = [...sentence.matchAll(AMOUNT_AFTER)].filter((a) => !before.some((b) => a.index < b.index + b[0].length && b.index < a.index + a[0].length));
  return [...before, ...after]
    .sort((x, y) => x.index - y.index)
    .flatMap((m) => minorUnits(m[1]) ?? []);
}

/** The first amount a sentence names, in minor units. */
export function amountIn(sentence: string): number | null {
  return amountsIn(sentence)[0] ?? null;
}

/** A later part of a payment in parts: "1,000 now and the rest on the 15th", "half Friday, the other half next week". */
const LATER_PART = /\b(?:the rest|the remainder|the remaining|remaining balance|the balance|(?:the other|another|second|final|last) (?:half|part|payment|instal?ment)|and (?:the other )?(?:half|1\/2))\b/i;

/**
 * The promise of one commitment sentence, when it names a date in [today, horizon] or an amount.
 * A payment in parts (a later part named, or an amount for each date) is kept when its last part
 * is paid: its date is the latest, its amount the parts' sum when each part names one, else none
 * (the last part is "the rest": the whole balance). Otherwise the earliest date, and the first amount.
 */
export function promiseOf(sentence: string, today: string, horizon: string, order: DateOrder = 'month'): { date: string | null; amount: number | null } | null {
  const dates = datesIn(sentence, today, order).filter((d) => d >= today && d <= horizon).sort();
  const amounts = amountsIn(sentence);
  if (dates.length === 0 && amounts.length === 0) return null;
  const each = amounts.length === dates.length;
  if (dates.length > 1 && (each || LATER_PART.test(sentence))) {
    return { date: dates[dates.length - 1], amount: each ? amounts.reduce((a, b) => a + b, 0) : null };
  }
  return { date: dates[0] ?? null, amount: amounts[0] ?? null };
}

const clip = (s: string) => (s.length > SENTENCE_MAX ? `${s.slice(0, SENTENCE_MAX - 1)}…` : s);

/** A sentence that commits to paying, turned down by nothing and waiting on nothing. */
export function isCommitment(sentence: string): boolean {
  if (/\?\s*$/.test(sentence)) return false;
  if (PAID_TO_WRITER.test(sentence) || REFUSAL.test(sentence) || CONDITION.test(sentence) || HEDGE.test(sentence) || DEFERRAL.test(sentence.replace(CONFIRMED, ''))) return false;
  return COMMITMENT.some((re) => re.test(sentence));
}

function asksSomething(sentence: string): boolean {
  if (COURTESY.test(sentence)) return false;
  return /\?\s*$/.test(sentence) || /\?\s+\S/.test(sentence) || REQUEST.test(sentence) || WHO.test(sentence);
}

/**
 * How a reply reads. `subject` counts only when the customer wrote it (not "RE:" of ours); `saidAt`
 * places relative dates, `order` numeric ones (the writer's, dateOrderOf). A complaint anywhere in the customer's words makes a proposed dispute
 * (whatever else they say); then an explicit, unconditional commitment with a date within the
 * horizon or an amount makes a promise; then a question or a request makes "needs an answer".
 */
export function readReply(subject: string | null, body: string | null, saidAt: string, order: DateOrder = 'month'): ReplyReading {
  const own = ownWords(body ?? '').slice(0, READ_MAX_CHARS);
  const subjectOwn = subject && !/^\s*(re|aw|sv|fw|fwd|tr|wg)\s*:/i.test(subject) ? subject : null;
  const all = [...(subjectOwn ? [subjectOwn] : []), ...sentencesOf(own)].slice(0, READ_MAX_SENTENCES).map((s) => s.slice(0, SENTENCE_MAX * 2));
  if (all.length === 0) return NONE;
  const today = saidAt.slice(0, 10);
  const complaint = all.find((s) => COMPLAINT.some((re) => re.test(s)));
  if (complaint) return { kind: 'dispute', date: null, amount: null, sentence: clip(complaint) };
  const stranger = all.find((s) => WHO.test(s));
  if (stranger) return { kind: 'needs_answer', date: null, amount: null, sentence: clip(stranger) };
  const horizon = addDays(today, PROMISE_HORIZON_DAYS);
  for (const sentence of all) {
    if (!isCommitment(sentence)) continue;
    const promise = promiseOf(sentence, today, horizon, order);
    if (promise) return { kind: 'promise', ...promise, sentence: clip(sentence) };
  }
  const paid = all.find((s) => PAID_CLAIM.some((re) => re.test(s)));
  if (paid) return { kind: 'dispute', date: null, amount: null, sentence: clip(paid) };
  const question = all.find((s) => NEEDS_ANSWER.some((re) => re.test(s)) || asksSomething(s));
  if (question) return { kind: 'needs_answer', date: null, amount: null, sentence: clip(question) };
  return NONE;
}
