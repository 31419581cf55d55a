// Names of the demo store's customers: deterministic per customer number, varied enough that the
// loyalty screen's search and tables look like a real shop's (1,936 first × last name pairs,
// accents included, so search is seen to ignore them).

const FIRST_NAMES = [
  'Olivia', 'Liam', 'Emma', 'Noah', 'Amelia', 'Oliver', 'Sophia', 'Elijah', 'Charlotte', 'James', 'Mia', 'Lucas',
  'Zoë', 'Mateo', 'Chloé', 'Henry', 'Aisha', 'Leo', 'Isabella', 'Jack', 'Hannah', 'Finn', 'Léa', 'Oscar',
  'Maya', 'Arjun', 'Freya', 'Hugo', 'Sofía', 'Ethan', 'Nora', 'Kenji', 'Ingrid', 'Diego', 'Priya', 'Samuel',
  'Grace', 'Tomás', 'Ava', 'Mohammed', 'Ella', 'Felix', 'Lily', 'Rafael',
];

const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'García', 'Miller', 'Davis', 'Martínez', 'Wilson', 'Anderson', 'Taylor',
  'Thomas', 'Moore', 'Martin', 'Lee', 'Thompson', 'White', 'Müller', 'Schmidt', 'Dubois', 'Lefèvre', 'Rossi', 'Bianchi',
  'Kowalski', 'Novak', 'Tanaka', 'Sato', 'Patel', 'Singh', 'Kim', 'Nguyen', "O'Brien", 'Murphy', 'Jensen', 'Larsen',
  'Silva', 'Santos', 'Fischer', 'Weber', 'Clarke', 'Walker', 'Hall', 'Young',
];

export function demoCustomerName(customerNumber: number): string {
  const first = FIRST_NAMES[customerNumber % FIRST_NAMES.length]!;
  const last = LAST_NAMES[Math.floor(customerNumber / FIRST_NAMES.length) % LAST_NAMES.length]!;
  return `${first} ${last}`;
}

/** The demo customer's e-mail: their name, so the tables read naturally, and their number, so it is unique. */
export function demoCustomerEmail(customerNumber: number): string {
  const local = demoCustomerName(customerNumber).normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z]+/g, '.');
  return `${local}.${customerNumber}@demo.storepulse.invalid`;
}
