import { describe, expect, it } from 'vitest';
import {
  type DirectIdentifierKind,
  findDirectIdentifier,
  findIdentifierKey,
} from '../../src/domain/submission/index.js';

describe('findDirectIdentifier', () => {
  const identifiers: Array<[string, DirectIdentifierKind]> = [
    // e-mail
    ['jane.doe@example.com', 'e-mail address'],
    ['contact: J.Doe+lab@mail.example.co.uk today', 'e-mail address'],
    // phone: international
    ['+44 20 7946 0958', 'phone number'],
    ['Call +44 (0)20 7946-0958 to book.', 'phone number'],
    ['+1.555.123.4567', 'phone number'],
    ['+4915123456789', 'phone number'],
    // phone: North American
    ['(555) 123-4567', 'phone number'],
    ['555-123-4567', 'phone number'],
    ['555.123.4567', 'phone number'],
    // phone: UK
    ['07700 900123', 'phone number'],
    ['020 7946 0958', 'phone number'],
    ['ring 0161 496 0000 after 5', 'phone number'],
    // national identifiers
    ['123-45-6789', 'national identifier'],
    ['943 476 5919', 'national identifier'],
    ['9434765919', 'national identifier'],
    // A spaced 3-3-4 number failing the NHS check still reads as a phone number.
    ['943 476 5918', 'phone number'],
    ['NHS number 943 476 5919', 'national identifier'],
    // record numbers
    ['MRN 00123456', 'record number'],
    ['MRN:123456', 'record number'],
    ['mrn#7654321', 'record number'],
    ['Medical record number 445566', 'record number'],
    ['record no. 12345', 'record number'],
    ['Patient ID: 98765', 'record number'],
    ['patient number 5550001', 'record number'],
    ['hospital number K123456', 'record number'],
    ['NHS no 1234567890', 'record number'],
    ['SSN 123456789', 'record number'],
    // postal codes
    ['SW1A 1AA', 'postal code'],
    ['lives near M1 1AE', 'postal code'],
    ['B33 8TH', 'postal code'],
    ['12345-6789', 'postal code'],
    ['zip 90210', 'postal code'],
    ['postcode 90210', 'postal code'],
    ['Postal code: 10115', 'postal code'],
    // street addresses
    ['221B Baker Street', 'postal address'],
    ['10 Downing St', 'postal address'],
    ['1600 Pennsylvania Avenue NW', 'postal address'],
    ['lives at 42 wallaby way, Sydney', 'postal address'],
    ['3 Abbey Rd', 'postal address'],
    ['15 Old Mill Lane', 'postal address'],
    ['7 Elm Drive', 'postal address'],
    ['9 High Close', 'postal address'],
    ['12 Kings Court', 'postal address'],
    ['4 Privet Place', 'postal address'],
    ['8 Sunset Boulevard', 'postal address'],
    ['5 Rose Terrace', 'postal address'],
    ['31 Moon CRESCENT', 'postal address'],
  ];

  it.each(identifiers)('finds %j as %s', (text, kind) => {
    expect(findDirectIdentifier(text)).toBe(kind);
  });

  const clean = [
    '12345678-1234-1234-1234-123456789012',
    '7b0c6a2e-3f4d-4f8e-9a61-2b1f0c9d8e7a',
    '7B0C6A2E-3F4D-4F8E-9A61-2B1F0C9D8E7A',
    'subj-9f8e7d',
    'sub-000123',
    'P-2026-000123',
    // A pseudonymous sequence with no record keyword is not a record number.
    'patient-42',
    'HbA1c 37 mmol/mol, LDL 3.2 mmol/L, BP 128/82, seen 2026-11-20',
    '2026-11-20',
    '2026-11-20T09:30:00Z',
    '2026-11-20T09:30:00.123+01:00',
    '20/11/2026',
    'Took 2 tablets on the way to clinic.',
    'Seen 2 weeks ago by Dr Patel; review in 3 months at the Court.',
    'Walks 5 km along the lane most days.',
    'NHS 111 advice given.',
    'Follow NHS 2024 guidance.',
    'x2 3ml doses',
    'eGFR 78 mL/min/1.73m2, CRP 1.2 mg/L, HDL 1.6 mmol/L',
    'Score +1.5 from baseline',
    '9434765918', // fails the NHS modulus-11 check
    'lab sample 00123456',
    'visit 3 of 12',
  ];

  it.each(clean.map((t) => [t]))('does not flag %j', (text) => {
    expect(findDirectIdentifier(text)).toBeNull();
  });

  // Catastrophic backtracking would hang here; speed itself is for benchmarks, not tests.
  it('scans 20,000-character adversarial texts to a verdict', () => {
    const inputs = [
      'a'.repeat(20_000),
      `${'a'.repeat(19_990)}@`,
      '1 '.repeat(10_000),
      '1'.repeat(20_000),
      '+1 '.repeat(6_666),
      '12 abc '.repeat(2_857),
      'MRN '.repeat(5_000),
    ];
    expect(inputs.map((text) => findDirectIdentifier(text))).toEqual(inputs.map(() => null));
  });
});

describe('findIdentifierKey', () => {
  const flagged = [
    'name',
    'firstName',
    'first_name',
    'LAST-NAME',
    'fullName',
    'surname',
    'givenName',
    'patientName',
    'nickname',
    'email',
    'e-mail',
    'eMail',
    'patientEmail',
    'emailAddress',
    'phone',
    'phoneNumber',
    'mobile',
    'telephone',
    'address',
    'homeAddress',
    'addressLine1',
    'street',
    'postcode',
    'postalCode',
    'post_code',
    'zip',
    'zipCode',
    'zipcode',
    'ssn',
    'patientSSN',
    'socialSecurityNumber',
    'nhsNumber',
    'nhs_number',
    'mrn',
    'medicalRecordNumber',
    'recordNumber',
    'dateOfBirth',
    'date_of_birth',
    'dob',
    'birthDate',
    'birthdate',
    'passport',
    'passportNumber',
    'driverLicence',
    'driversLicense',
    'drivingLicenceNumber',
    'nationalId',
    'national_identifier',
    'insuranceNumber',
    'memberId',
    'ipAddress',
    'patientId',
    'hospitalNumber',
  ];

  it.each(flagged.map((k) => [k]))('flags %j', (key) => {
    expect(findIdentifierKey(key)).toBe(true);
  });

  const notFlagged = [
    'biomarkerVersion',
    'studyArm',
    // A visit sequence number and a de-identified subject reference are not direct identifiers.
    'visitNumber',
    'subjectId',
    'addressed',
    'nameplate',
    'drugName',
    'labName',
    'likertVersion',
    'items',
    'telomereLength',
    'mobilityScore',
    'zipper',
    'streetlightExposure',
    'birthYear',
    'postalRegion',
    'recordedAt',
    'numberOfChildren',
    'extension12',
  ];

  it.each(notFlagged.map((k) => [k]))('does not flag %j', (key) => {
    expect(findIdentifierKey(key)).toBe(false);
  });

  it('gives a key the same verdict every time, however many other keys were read in between', () => {
    const verdicts = new Map([...flagged, ...notFlagged].map((k) => [k, findIdentifierKey(k)]));
    for (let round = 0; round < 3; round++) {
      // Enough distinct keys to overflow what is remembered of earlier ones.
      for (let i = 0; i < 5000; i++) findIdentifierKey(`extension${round}x${i}${i % 7 === 0 ? 'Name' : ''}`);
      for (const [key, verdict] of verdicts) expect(findIdentifierKey(key), key).toBe(verdict);
    }
    expect(findIdentifierKey(`${'x'.repeat(100)}FirstName`)).toBe(true);
    expect(findIdentifierKey(`${'x'.repeat(100)}FirstName`)).toBe(true);
  });
});
