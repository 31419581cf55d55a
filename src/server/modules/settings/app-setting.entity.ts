import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One value the installation keeps about itself (e.g. `public_origin`), written once. */
export const AppSetting = defineEntity({
  name: 'AppSetting',
  tableName: 'app_settings',
  properties: {
    key: p.string().length(64).primary(),
    value: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type AppSettingEntity = InferEntity<typeof AppSetting>;
