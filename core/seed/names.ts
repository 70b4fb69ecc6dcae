/**
 * The vocabulary of the generated ledgers: hand-written customers for the demo companies, and
 * word lists from which any number of further, plausible small-business customers are composed.
 * Every email domain is under example.com and every phone number is in the 555-01xx range kept
 * for fiction, so no generated contact can reach a real person.
 */

/** What kind of business a customer is: drives invoice sizes and progress billing. */
export type CustomerKind = 'contractor' | 'clinic' | 'distributor' | 'manufacturer' | 'services' | 'hospitality' | 'retail' | 'public' | 'person';

/** How a customer pays: its mean lateness and how often it never pays. */
export type PayerProfile = 'prompt' | 'slow' | 'late' | 'problem';

export interface CustomerSpec {
  name: string;
  kind: CustomerKind;
  /** Index into CITIES. */
  city: number;
  contact: { first: string; last: string; title: string };
  terms: 30 | 45;
  payer: PayerProfile;
  vip?: boolean;
}

export interface City {
  city: string;
  region: string;
  zip: string;
  area: string;
}

export const CITIES: City[] = [
  { city: 'Portland', region: 'OR', zip: '972', area: '503' },
  { city: 'Seattle', region: 'WA', zip: '981', area: '206' },
  { city: 'Boise', region: 'ID', zip: '837', area: '208' },
  { city: 'Sacramento', region: 'CA', zip: '958', area: '916' },
  { city: 'Denver', region: 'CO', zip: '802', area: '303' },
  { city: 'Salt Lake City', region: 'UT', zip: '841', area: '801' },
  { city: 'Phoenix', region: 'AZ', zip: '850', area: '602' },
  { city: 'Austin', region: 'TX', zip: '787', area: '512' },
  { city: 'Dallas', region: 'TX', zip: '752', area: '214' },
  { city: 'Kansas City', region: 'MO', zip: '641', area: '816' },
  { city: 'Omaha', region: 'NE', zip: '681', area: '402' },
  { city: 'Minneapolis', region: 'MN', zip: '554', area: '612' },
  { city: 'Madison', region: 'WI', zip: '537', area: '608' },
  { city: 'Chicago', region: 'IL', zip: '606', area: '312' },
  { city: 'Indianapolis', region: 'IN', zip: '462', area: '317' },
  { city: 'Columbus', region: 'OH', zip: '432', area: '614' },
  { city: 'Pittsburgh', region: 'PA', zip: '152', area: '412' },
  { city: 'Buffalo', region: 'NY', zip: '142', area: '716' },
  { city: 'Albany', region: 'NY', zip: '122', area: '518' },
  { city: 'Hartford', region: 'CT', zip: '061', area: '860' },
  { city: 'Providence', region: 'RI', zip: '029', area: '401' },
  { city: 'Manchester', region: 'NH', zip: '031', area: '603' },
  { city: 'Richmond', region: 'VA', zip: '232', area: '804' },
  { city: 'Raleigh', region: 'NC', zip: '276', area: '919' },
  { city: 'Charleston', region: 'SC', zip: '294', area: '843' },
  { city: 'Atlanta', region: 'GA', zip: '303', area: '404' },
  { city: 'Nashville', region: 'TN', zip: '372', area: '615' },
  { city: 'Louisville', region: 'KY', zip: '402', area: '502' },
  { city: 'Tampa', region: 'FL', zip: '336', area: '813' },
  { city: 'Albuquerque', region: 'NM', zip: '871', area: '505' },
];

export const STREETS = [
  'Main St', 'Oak Ave', 'Industrial Pkwy', 'Commerce Dr', 'Market St', 'River Rd', 'Elm St', 'Park Ave', 'Cedar Ln',
  'Harbor Blvd', 'Mill Rd', 'Airport Way', 'Lakeshore Dr', 'Maple Ave', 'Center St', 'Washington Ave', 'Railroad St',
  'Enterprise Ct', 'Summit Ridge Rd', 'Union St', 'Franklin Blvd', 'Depot St', 'Canal St', 'Pioneer Way',
];

export const FIRST_NAMES = [
  'James', 'Maria', 'Robert', 'Linda', 'Michael', 'Patricia', 'David', 'Jennifer', 'William', 'Elizabeth', 'Richard',
  'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Carlos', 'Karen', 'Daniel', 'Nancy', 'Matthew', 'Lisa', 'Anthony',
  'Betty', 'Mark', 'Sandra', 'Donald', 'Ashley', 'Steven', 'Kimberly', 'Andrew', 'Emily', 'Paul', 'Donna', 'Joshua',
  'Michelle', 'Kenneth', 'Carol', 'Kevin', 'Amanda', 'Brian', 'Melissa', 'George', 'Deborah', 'Timothy', 'Stephanie',
  'Ronald', 'Rebecca', 'Jason', 'Laura', 'Edward', 'Sharon', 'Jeffrey', 'Cynthia', 'Ryan', 'Kathleen', 'Jacob', 'Amy',
  'Gary', 'Angela', 'Nicholas', 'Shirley', 'Eric', 'Anna', 'Jonathan', 'Brenda', 'Stephen', 'Pamela', 'Larry', 'Emma',
  'Justin', 'Nicole', 'Scott', 'Helen', 'Brandon', 'Samantha', 'Benjamin', 'Katherine', 'Samuel', 'Christine', 'Raymond',
  'Debra', 'Gregory', 'Rachel', 'Frank', 'Carolyn', 'Alexander', 'Janet', 'Patrick', 'Catherine', 'Jack', 'Priya', 'Wei',
  'Aisha', 'Diego', 'Fatima', 'Hiroshi', 'Olga', 'Kwame', 'Ingrid', 'Rafael', 'Mei', 'Tariq', 'Lucia', 'Sven', 'Yusuf',
];

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez',
  'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson',
  'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King', 'Wright',
  'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores', 'Green', 'Adams', 'Nelson', 'Baker', 'Hall', 'Rivera', 'Campbell',
  'Mitchell', 'Carter', 'Roberts', 'Gomez', 'Phillips', 'Evans', 'Turner', 'Diaz', 'Parker', 'Cruz', 'Edwards', 'Collins',
  'Reyes', 'Stewart', 'Morris', 'Morales', 'Murphy', 'Cook', 'Rogers', 'Gutierrez', 'Ortiz', 'Morgan', 'Cooper', 'Peterson',
  'Bailey', 'Reed', 'Kelly', 'Howard', 'Ramos', 'Kim', 'Cox', 'Ward', 'Richardson', 'Watson', 'Brooks', 'Chavez', 'Wood',
  'James', 'Bennett', 'Gray', 'Mendoza', 'Ruiz', 'Hughes', 'Price', 'Alvarez', 'Castillo', 'Sanders', 'Patel', 'Myers',
  'Long', 'Ross', 'Foster', 'Jimenez', 'Powell', 'Jenkins', 'Perry', 'Russell', 'Sullivan', 'Bell', 'Coleman', 'Butler',
  'Henderson', 'Barnes', 'Gonzales', 'Fisher', 'Vasquez', 'Simmons', 'Romero', 'Jordan', 'Patterson', 'Alexander',
  'Hamilton', 'Graham', 'Reynolds', 'Griffin', 'Wallace', 'Moreno', 'West', 'Cole', 'Hayes', 'Bryant', 'Herrera', 'Gibson',
  'Ellis', 'Tran', 'Medina', 'Aguilar', 'Stevens', 'Murray', 'Ford', 'Castro', 'Marshall', 'Owens', 'Harrison', 'Fernandez',
  'McDonald', 'Woods', 'Washington', 'Kennedy', 'Wells', 'Vargas', 'Henry', 'Chen', 'Freeman', 'Webb', 'Tucker', 'Guzman',
  'Burns', 'Crawford', 'Olson', 'Simpson', 'Porter', 'Hunter', 'Gordon', 'Mendez', 'Silva', 'Shaw', 'Snyder', 'Mason',
];

/** Place-like words that start a business name ("Cedar Ridge Plumbing"). */
const PLACE_WORDS = [
  'Allied', 'Apex', 'Atlas', 'Beacon', 'Birchwood', 'Blackstone', 'Brookside', 'Canyon', 'Cedar Ridge', 'Centennial',
  'Chesapeake', 'Clearwater', 'Cobalt', 'Crestview', 'Crossroads', 'Cypress', 'Delta', 'Eagle', 'Eastgate', 'Elmhurst',
  'Empire', 'Fairview', 'Falcon', 'Frontier', 'Gateway', 'Great Lakes', 'Hawthorne', 'Heritage', 'Highland', 'Horizon',
  'Hudson Valley', 'Independence', 'Juniper', 'Kingston', 'Lakeview', 'Liberty', 'Lincoln', 'Magnolia', 'Mesa', 'Midland',
  'Mission', 'Monarch', 'Mountain View', 'Northern', 'Oak Ridge', 'Pacific', 'Paramount', 'Patriot', 'Peak', 'Pinnacle',
  'Premier', 'Quail Run', 'Rainier', 'Redstone', 'Ridgeline', 'Rockport', 'Sagebrush', 'Sequoia', 'Shoreline', 'Sierra',
  'Southport', 'Sterling', 'Sunset', 'Timberline', 'Trinity', 'Union', 'Vanguard', 'Victory', 'Vista', 'Westbrook',
  'Whitewater', 'Wildwood', 'Willow Bend', 'Windsor', 'Woodland', 'Bluewater', 'Copper Creek', 'Silver Lake', 'Three Rivers',
  'Golden Valley',
];

/** The trade in a business name, with the kind of customer it makes. */
const TRADES: Array<[string, CustomerKind]> = [
  ['Plumbing', 'contractor'], ['Electric', 'contractor'], ['Roofing', 'contractor'], ['Construction', 'contractor'],
  ['Mechanical', 'contractor'], ['Heating & Air', 'contractor'], ['Landscaping', 'contractor'], ['Paving', 'contractor'],
  ['Builders', 'contractor'], ['Medical Group', 'clinic'], ['Dental Care', 'clinic'], ['Family Medicine', 'clinic'],
  ['Animal Hospital', 'clinic'], ['Physical Therapy', 'clinic'], ['Eye Care', 'clinic'], ['Urgent Care', 'clinic'],
  ['Supply', 'distributor'], ['Distributors', 'distributor'], ['Wholesale', 'distributor'], ['Industrial Supply', 'distributor'],
  ['Building Materials', 'distributor'], ['Logistics', 'services'], ['Fleet Services', 'services'],
  ['Property Management', 'services'], ['Auto Repair', 'services'], ['Janitorial', 'services'], ['Manufacturing', 'manufacturer'],
  ['Machine Works', 'manufacturer'], ['Fabrication', 'manufacturer'], ['Plastics', 'manufacturer'],
  ['Restaurant Group', 'hospitality'], ['Catering', 'hospitality'], ['Hardware', 'retail'], ['Garden Center', 'retail'],
  ['Outfitters', 'retail'], ['School District', 'public'],
];

const SUFFIXES = ['', ' Inc.', ' LLC', ' Co.', ' Corp.', ' Group', ' Ltd.'];

/**
 * The name of the n-th generated business, unique for n below the size of the name space
 * (about 62,000): n is spread over the space by a multiplicative permutation, so neighbouring
 * customers do not share a first word.
 */
export function businessName(n: number): { name: string; kind: CustomerKind } {
  const starts = PLACE_WORDS.length + LAST_NAMES.length;
  const space = starts * TRADES.length * SUFFIXES.length;
  const k = permute(n % space, space);
  const round = Math.floor(n / space);
  const start = k % starts;
  const trade = TRADES[Math.floor(k / starts) % TRADES.length];
  const suffix = SUFFIXES[Math.floor(k / starts / TRADES.length)];
  const first = start < PLACE_WORDS.length ? PLACE_WORDS[start] : LAST_NAMES[start - PLACE_WORDS.length];
  const name = `${first} ${trade[0]}${suffix}${round > 0 ? ` ${round + 1}` : ''}`;
  return { name, kind: trade[1] };
}

/** The n-th generated individual customer, unique for n below FIRST_NAMES x LAST_NAMES. */
export function personName(n: number): { first: string; last: string } {
  const space = FIRST_NAMES.length * LAST_NAMES.length;
  const k = permute(n % space, space);
  return { first: FIRST_NAMES[k % FIRST_NAMES.length], last: LAST_NAMES[Math.floor(k / FIRST_NAMES.length)] };
}

/** A bijection of [0, size): multiplication by a prime that does not divide size. */
function permute(n: number, size: number): number {
  const prime = size % 7919 === 0 ? 7907 : 7919;
  return Number((BigInt(n) * BigInt(prime) + 12345n) % BigInt(size));
}

/** The host part of a business's email addresses: "cedar-ridge-plumbing.example.com". */
export function domainOf(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/&/g, 'and')
    .replace(/\b(inc|llc|co|corp|ltd)\b\.?/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${slug}.example.com`;
}

export function emailLocal(first: string, last: string): string {
  return `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
}

export const BILLING_TITLES = ['Accounts Payable Manager', 'AP Specialist', 'Controller', 'Office Manager', 'Bookkeeper', 'Finance Director', 'Owner'];

/** The first company's customers: an industrial supplier's mix of contractors, clinics and distributors. */
export const SUPPLY_CUSTOMERS: CustomerSpec[] = [
  { name: 'Cascade Builders Inc.', kind: 'contractor', city: 0, contact: { first: 'Karen', last: 'Whitfield', title: 'Controller' }, terms: 45, payer: 'late', vip: true },
  { name: 'Northgate Medical Clinic', kind: 'clinic', city: 1, contact: { first: 'Priya', last: 'Raman', title: 'Practice Administrator' }, terms: 30, payer: 'prompt' },
  { name: 'Riverside Plumbing & Heating', kind: 'contractor', city: 15, contact: { first: 'Tom', last: 'Kowalski', title: 'Owner' }, terms: 30, payer: 'slow' },
  { name: 'Summit Electrical Contractors', kind: 'contractor', city: 4, contact: { first: 'Angela', last: 'Ruiz', title: 'AP Specialist' }, terms: 45, payer: 'slow' },
  { name: 'Bayview Dental Group', kind: 'clinic', city: 3, contact: { first: 'Helen', last: 'Park', title: 'Office Manager' }, terms: 30, payer: 'prompt' },
  { name: 'Harborline Distribution LLC', kind: 'distributor', city: 28, contact: { first: 'Marcus', last: 'Greene', title: 'Accounts Payable Manager' }, terms: 45, payer: 'slow', vip: true },
  { name: 'Pinecrest Family Practice', kind: 'clinic', city: 23, contact: { first: 'Susan', last: 'Albright', title: 'Bookkeeper' }, terms: 30, payer: 'prompt' },
  { name: 'Granite State Roofing', kind: 'contractor', city: 21, contact: { first: 'Doug', last: 'Martel', title: 'Owner' }, terms: 30, payer: 'problem' },
  { name: 'Lakeside Veterinary Hospital', kind: 'clinic', city: 12, contact: { first: 'Rachel', last: 'Lindqvist', title: 'Hospital Manager' }, terms: 30, payer: 'prompt' },
  { name: 'Meridian Industrial Supply Co.', kind: 'distributor', city: 14, contact: { first: 'Gregory', last: 'Hale', title: 'Finance Director' }, terms: 45, payer: 'prompt', vip: true },
  { name: 'Oakwood Property Management', kind: 'services', city: 7, contact: { first: 'Lisa', last: 'Tran', title: 'Accounts Payable Manager' }, terms: 30, payer: 'slow' },
  { name: 'Redwood HVAC Services', kind: 'contractor', city: 3, contact: { first: 'Carlos', last: 'Mendoza', title: 'Office Manager' }, terms: 30, payer: 'late' },
  { name: 'Silverline Logistics Inc.', kind: 'services', city: 8, contact: { first: 'Jason', last: 'Brooks', title: 'AP Specialist' }, terms: 45, payer: 'slow' },
  { name: 'Evergreen Landscaping', kind: 'contractor', city: 0, contact: { first: 'Mei', last: 'Nakamura', title: 'Bookkeeper' }, terms: 30, payer: 'slow' },
  { name: 'Blue Ridge Physical Therapy', kind: 'clinic', city: 22, contact: { first: 'Amanda', last: 'Foster', title: 'Practice Manager' }, terms: 30, payer: 'prompt' },
  { name: 'Keystone Mechanical Corp.', kind: 'contractor', city: 16, contact: { first: 'Frank', last: 'DeLuca', title: 'Controller' }, terms: 45, payer: 'late' },
  { name: 'Prairie Wind Farms Cooperative', kind: 'services', city: 10, contact: { first: 'Ingrid', last: 'Olsen', title: 'Treasurer' }, terms: 30, payer: 'slow' },
  { name: 'Ironworks Fabrication LLC', kind: 'manufacturer', city: 16, contact: { first: 'Stephen', last: 'Novak', title: 'Accounts Payable Manager' }, terms: 45, payer: 'late' },
  { name: 'Coastal Urgent Care', kind: 'clinic', city: 24, contact: { first: 'Nicole', last: 'Bishop', title: 'Billing Coordinator' }, terms: 30, payer: 'problem' },
  { name: 'Maple Street Bakery', kind: 'hospitality', city: 19, contact: { first: 'Emma', last: 'Caron', title: 'Owner' }, terms: 30, payer: 'prompt' },
  { name: 'Tri-County Building Supply', kind: 'distributor', city: 9, contact: { first: 'Raymond', last: 'Fischer', title: 'Controller' }, terms: 45, payer: 'slow', vip: true },
  { name: 'Westfield Orthopedics', kind: 'clinic', city: 13, contact: { first: 'Fatima', last: 'Haddad', title: 'Revenue Cycle Manager' }, terms: 30, payer: 'slow' },
  { name: 'Brightwater Pool & Spa', kind: 'contractor', city: 6, contact: { first: 'Kevin', last: 'Sloane', title: 'Owner' }, terms: 30, payer: 'late' },
  { name: 'Copperfield Restaurant Group', kind: 'hospitality', city: 26, contact: { first: 'Diego', last: 'Santos', title: 'Accounts Payable Manager' }, terms: 30, payer: 'late' },
  { name: 'Hillside Senior Living', kind: 'clinic', city: 27, contact: { first: 'Deborah', last: 'Quinn', title: 'Business Office Manager' }, terms: 30, payer: 'slow' },
  { name: 'Anchor Marine Services', kind: 'services', city: 20, contact: { first: 'Patrick', last: 'Doyle', title: 'Owner' }, terms: 30, payer: 'slow' },
  { name: 'Greenfield School District', kind: 'public', city: 11, contact: { first: 'Janet', last: 'Lindgren', title: 'Purchasing Officer' }, terms: 45, payer: 'slow' },
  { name: 'Stonebridge Construction Co.', kind: 'contractor', city: 25, contact: { first: 'Victor', last: 'Hale', title: 'Project Accountant' }, terms: 45, payer: 'late' },
  { name: 'Valley Auto Body', kind: 'services', city: 5, contact: { first: 'Ricky', last: 'Alvarez', title: 'Owner' }, terms: 30, payer: 'problem' },
  { name: 'Sunrise Pediatrics', kind: 'clinic', city: 7, contact: { first: 'Grace', last: 'Oyelaran', title: 'Office Manager' }, terms: 30, payer: 'prompt' },
  { name: 'Northstar Packaging Inc.', kind: 'manufacturer', city: 11, contact: { first: 'Brian', last: 'Lund', title: 'AP Specialist' }, terms: 45, payer: 'prompt' },
  { name: 'Old Mill Hardware', kind: 'retail', city: 17, contact: { first: 'Gary', last: 'Whitcomb', title: 'Owner' }, terms: 30, payer: 'slow' },
  { name: 'Crescent City Caterers', kind: 'hospitality', city: 28, contact: { first: 'Lucia', last: 'Moreau', title: 'Bookkeeper' }, terms: 30, payer: 'late' },
  { name: 'Foxglove Floral Design', kind: 'retail', city: 2, contact: { first: 'Chloe', last: 'Bennett', title: 'Owner' }, terms: 30, payer: 'prompt' },
  { name: 'Pioneer Well Drilling', kind: 'contractor', city: 29, contact: { first: 'Wade', last: 'Harlan', title: 'Office Manager' }, terms: 30, payer: 'problem' },
  { name: 'Clearview Optometry', kind: 'clinic', city: 18, contact: { first: 'Anna', last: 'Petrova', title: 'Practice Manager' }, terms: 30, payer: 'prompt' },
  { name: 'Twin Rivers Distributing', kind: 'distributor', city: 16, contact: { first: 'Kwame', last: 'Asante', title: 'Accounts Payable Manager' }, terms: 45, payer: 'slow' },
  { name: 'Beacon Hill Dermatology', kind: 'clinic', city: 20, contact: { first: 'Olga', last: 'Ivanova', title: 'Billing Coordinator' }, terms: 30, payer: 'prompt' },
  { name: 'Redline Fleet Maintenance', kind: 'services', city: 8, contact: { first: 'Tariq', last: 'Aziz', title: 'Controller' }, terms: 30, payer: 'late' },
  { name: 'Juniper Creek Vineyards', kind: 'manufacturer', city: 3, contact: { first: 'Sofia', last: 'Castellano', title: 'Finance Director' }, terms: 45, payer: 'slow' },
  { name: 'Maria Gonzalez', kind: 'person', city: 7, contact: { first: 'Maria', last: 'Gonzalez', title: 'Homeowner' }, terms: 30, payer: 'slow' },
  { name: "James O'Connor", kind: 'person', city: 19, contact: { first: 'James', last: "O'Connor", title: 'Homeowner' }, terms: 30, payer: 'prompt' },
  { name: 'Aisha Patel', kind: 'person', city: 13, contact: { first: 'Aisha', last: 'Patel', title: 'Homeowner' }, terms: 30, payer: 'prompt' },
  { name: 'Robert Kim', kind: 'person', city: 1, contact: { first: 'Robert', last: 'Kim', title: 'Homeowner' }, terms: 30, payer: 'late' },
  { name: 'Emily Chen', kind: 'person', city: 4, contact: { first: 'Emily', last: 'Chen', title: 'Homeowner' }, terms: 30, payer: 'slow' },
  { name: 'David Thompson', kind: 'person', city: 25, contact: { first: 'David', last: 'Thompson', title: 'Homeowner' }, terms: 30, payer: 'problem' },
  { name: 'Sofia Rossi', kind: 'person', city: 20, contact: { first: 'Sofia', last: 'Rossi', title: 'Homeowner' }, terms: 30, payer: 'prompt' },
  { name: 'Michael Brennan', kind: 'person', city: 17, contact: { first: 'Michael', last: 'Brennan', title: 'Homeowner' }, terms: 30, payer: 'slow' },
];

/** The second company's customers: a caterer's smaller book. */
export const CATERING_CUSTOMERS: CustomerSpec[] = [
  { name: 'Lakeshore Events Center', kind: 'hospitality', city: 13, contact: { first: 'Monica', last: 'Reyes', title: 'Events Director' }, terms: 30, payer: 'slow', vip: true },
  { name: 'Hartwell & Finch LLP', kind: 'services', city: 13, contact: { first: 'Edward', last: 'Finch', title: 'Office Manager' }, terms: 30, payer: 'prompt' },
  { name: "St. Agnes Parish Hall", kind: 'public', city: 12, contact: { first: 'Margaret', last: 'Doherty', title: 'Parish Administrator' }, terms: 30, payer: 'prompt' },
  { name: 'Orion Tech Campus', kind: 'services', city: 11, contact: { first: 'Neil', last: 'Varga', title: 'AP Specialist' }, terms: 45, payer: 'late' },
  { name: 'Willow Creek Country Club', kind: 'hospitality', city: 14, contact: { first: 'Charles', last: 'Beaumont', title: 'Controller' }, terms: 30, payer: 'slow' },
  { name: 'Greenway Medical Plaza', kind: 'clinic', city: 13, contact: { first: 'Yusuf', last: 'Demir', title: 'Facilities Manager' }, terms: 30, payer: 'problem' },
  { name: 'Jennifer Walsh', kind: 'person', city: 13, contact: { first: 'Jennifer', last: 'Walsh', title: 'Client' }, terms: 30, payer: 'prompt' },
  { name: 'Marcus Bell', kind: 'person', city: 12, contact: { first: 'Marcus', last: 'Bell', title: 'Client' }, terms: 30, payer: 'late' },
];
