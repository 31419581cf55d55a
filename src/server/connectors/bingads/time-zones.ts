// Microsoft Advertising names time zones with its own enum, not IANA ids. An account's TimeZone
// (AdvertiserAccount.TimeZone, a TimeZoneType) defines its reporting days; reports take a
// ReportTimeZone, a second enum with the same zones under four different spellings.
//
// TimeZoneType values: https://learn.microsoft.com/en-us/advertising/customer-management-service/timezonetype
// ReportTimeZone values: https://learn.microsoft.com/en-us/advertising/reporting-service/reporttimezone
// (source: github.com/MicrosoftDocs/Advertising, advertising/bingads-13/customer-management-service/
// timezonetype.md and reporting-service/reporttimezone.md, 75 values each).
//
// The IANA zone of each is the one its label names first (Microsoft's labels group cities that shared
// an offset when the enum was made; where those cities have since diverged, e.g. AlmatyNovosibirsk,
// the first-named city is the one kept).

export const TIME_ZONE_TYPES: Readonly<Record<string, string>> = {
  AbuDhabiMuscat: 'Asia/Dubai',
  Adelaide: 'Australia/Adelaide',
  Alaska: 'America/Anchorage',
  AlmatyNovosibirsk: 'Asia/Almaty',
  AmsterdamBerlinBernRomeStockholmVienna: 'Europe/Berlin',
  Arizona: 'America/Phoenix',
  AstanaDhaka: 'Asia/Dhaka',
  AthensBuckarestIstanbul: 'Europe/Athens',
  AtlanticTimeCanada: 'America/Halifax',
  AucklandWellington: 'Pacific/Auckland',
  Azores: 'Atlantic/Azores',
  Baghdad: 'Asia/Baghdad',
  BakuTbilisiYerevan: 'Asia/Baku',
  BangkokHanoiJakarta: 'Asia/Bangkok',
  BeijingChongqingHongKongUrumqi: 'Asia/Shanghai',
  BelgradeBratislavaBudapestLjubljanaPrague: 'Europe/Belgrade',
  BogotaLimaQuito: 'America/Bogota',
  Brasilia: 'America/Sao_Paulo',
  Brisbane: 'Australia/Brisbane',
  BrusselsCopenhagenMadridParis: 'Europe/Paris',
  Bucharest: 'Europe/Bucharest',
  BuenosAiresGeorgetown: 'America/Argentina/Buenos_Aires',
  Cairo: 'Africa/Cairo',
  CanberraMelbourneSydney: 'Australia/Sydney',
  CapeVerdeIsland: 'Atlantic/Cape_Verde',
  CaracasLaPaz: 'America/Caracas',
  CasablancaMonrovia: 'Africa/Casablanca',
  CentralAmerica: 'America/Guatemala',
  CentralTimeUSCanada: 'America/Chicago',
  ChennaiKolkataMumbaiNewDelhi: 'Asia/Kolkata',
  ChihuahuaLaPazMazatlan: 'America/Mazatlan',
  Darwin: 'Australia/Darwin',
  EasternTimeUSCanada: 'America/New_York',
  Ekaterinburg: 'Asia/Yekaterinburg',
  FijiKamchatkaMarshallIsland: 'Pacific/Fiji',
  Greenland: 'America/Nuuk',
  GreenwichMeanTimeDublinEdinburghLisbonLondon: 'Europe/London',
  GuadalajaraMexicoCityMonterrey: 'America/Mexico_City',
  GuamPortMoresby: 'Pacific/Port_Moresby',
  HararePretoria: 'Africa/Johannesburg',
  Hawaii: 'Pacific/Honolulu',
  HelsinkiKyivRigaSofiaTallinnVilnius: 'Europe/Helsinki',
  Hobart: 'Australia/Hobart',
  IndianaEast: 'America/Indiana/Indianapolis',
  InternationalDateLineWest: 'Etc/GMT+12',
  IrkutskUlaanBataar: 'Asia/Irkutsk',
  IslamabadKarachiTashkent: 'Asia/Karachi',
  Jerusalem: 'Asia/Jerusalem',
  Kabul: 'Asia/Kabul',
  Kathmandu: 'Asia/Kathmandu',
  Krasnoyarsk: 'Asia/Krasnoyarsk',
  KualaLumpurSingapore: 'Asia/Singapore',
  KuwaitRiyadh: 'Asia/Riyadh',
  MidAtlantic: 'Atlantic/South_Georgia',
  MidwayIslandAndSamoa: 'Pacific/Pago_Pago',
  MoscowStPetersburgVolgograd: 'Europe/Moscow',
  MountainTimeUSCanada: 'America/Denver',
  Nairobi: 'Africa/Nairobi',
  Newfoundland: 'America/St_Johns',
  Nukualofa: 'Pacific/Tongatapu',
  OsakaSapporoTokyo: 'Asia/Tokyo',
  PacificTimeUSCanadaTijuana: 'America/Los_Angeles',
  Perth: 'Australia/Perth',
  Rangoon: 'Asia/Yangon',
  Santiago: 'America/Santiago',
  SarajevoSkopjeWarsawZagreb: 'Europe/Warsaw',
  Saskatchewan: 'America/Regina',
  Seoul: 'Asia/Seoul',
  SolomonIslandNewCaledonia: 'Pacific/Guadalcanal',
  SriJayawardenepura: 'Asia/Colombo',
  Taipei: 'Asia/Taipei',
  Tehran: 'Asia/Tehran',
  Vladivostok: 'Asia/Vladivostok',
  WestCentralAfrica: 'Africa/Lagos',
  Yakutsk: 'Asia/Yakutsk',
};

/** The four TimeZoneType values ReportTimeZone spells differently; the other 71 are spelled alike. */
const REPORT_SPELLINGS: Readonly<Record<string, string>> = {
  AthensBuckarestIstanbul: 'AthensIslandanbulMinsk',
  IslamabadKarachiTashkent: 'IslandamabadKarachiTashkent',
  MidwayIslandAndSamoa: 'MidwayIslandandSamoa',
  SolomonIslandNewCaledonia: 'MagadanSolomonIslandNewCaledonia',
};

/** Every ReportTimeZone value with its IANA zone. */
export const REPORT_TIME_ZONES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(TIME_ZONE_TYPES).map(([name, zone]) => [REPORT_SPELLINGS[name] ?? name, zone]),
);

/** The IANA zone of an account's TimeZone, or null for a value this table does not know. */
export function ianaZoneOf(timeZoneType: string | null | undefined): string | null {
  return (timeZoneType && TIME_ZONE_TYPES[timeZoneType]) || null;
}

/** The ReportTimeZone that names the same zone as an account's TimeZone, or null for an unknown value. */
export function reportTimeZoneOf(timeZoneType: string | null | undefined): string | null {
  if (!timeZoneType || !TIME_ZONE_TYPES[timeZoneType]) return null;
  return REPORT_SPELLINGS[timeZoneType] ?? timeZoneType;
}
