import type { OptionRule } from './option-rule.js';

/** Latitude and longitude come together; accuracy only with them. */
export const emulationRules: OptionRule[] = [
  ({ given, add }) => {
    const lat = given('geolocation_latitude');
    const lon = given('geolocation_longitude');
    if (lat && !lon) add('invalid_parameter', 'geolocation_longitude', 'is required with geolocation_latitude');
    if (lon && !lat) add('invalid_parameter', 'geolocation_latitude', 'is required with geolocation_longitude');
    if (given('geolocation_accuracy') && !lat && !lon) {
      add('invalid_parameter', 'geolocation_accuracy', 'applies only with geolocation_latitude and geolocation_longitude');
    }
  },
];
