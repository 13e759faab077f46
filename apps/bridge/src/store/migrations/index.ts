// The one ordered list of schema migrations, for both backends, and the kysely migration
// provider that serves it from code (no files read at runtime, so the built bridge needs no
// migration folder next to it). Names sort in the order they run: add new ones at the end.
import type { Migration, MigrationProvider } from 'kysely';
import { initialMigration } from './0001_initial.js';
import { desktopsMigration } from './0002_desktops.js';
import { clientApprovalsMigration } from './0003_client_approvals.js';
import { recordingsMigration } from './0004_recordings.js';
import { siteMigration } from './0005_site.js';
import { recordingStorageMigration } from './0006_recording_storage.js';
import { siteSecretMigration } from './0007_site_secret.js';
import { transferPolicyMigration } from './0008_transfer_policy.js';
import { recordingS3PlaceMigration } from './0009_recording_s3_place.js';
import { auditDecidedByMigration } from './0010_audit_decided_by.js';

export type StoreDialect = 'sqlite' | 'postgres';

export function migrationProvider(dialect: StoreDialect): MigrationProvider {
  return {
    getMigrations(): Promise<Record<string, Migration>> {
      return Promise.resolve({
        '0001_initial': initialMigration(dialect),
        '0002_desktops': desktopsMigration(),
        '0003_client_approvals': clientApprovalsMigration(),
        '0004_recordings': recordingsMigration(),
        '0005_site': siteMigration(),
        '0006_recording_storage': recordingStorageMigration(),
        '0007_site_secret': siteSecretMigration(),
        '0008_transfer_policy': transferPolicyMigration(),
        '0009_recording_s3_place': recordingS3PlaceMigration(),
        '0010_audit_decided_by': auditDecidedByMigration(dialect),
      });
    },
  };
}
