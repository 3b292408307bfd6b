/**
 * `npm run restore-drill`: the data plane is a real DynamoDB Local (tables created from the
 * definition the stack deploys); the control plane that DynamoDB Local lacks (continuous backups,
 * point-in-time restore) is mocked with aws-sdk-client-mock. The mocked restore copies the live
 * table's items into a new table, as a restore does, so the drill compares real data.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  DeleteTableCommand,
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
  RestoreTableToPointInTimeCommand,
  ScanCommand,
  UpdateTableCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { createTable } from '../../infra/local/dynamodb.ts';
import { startLocalTable, type LocalTable } from '../support/local-table.ts';
import { drillTableName, resolveTable, restoreDrill, type DrillClients, type DrillOptions } from '../../scripts/restore-drill.ts';

const LIVE = 'timebill-drill-live';
const LATEST = new Date('2026-11-22T05:00:00Z');
const NOW = new Date('2026-11-22T05:05:00Z');

let localTable: LocalTable | undefined;
let data: DynamoDBClient;
const control = new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const controlMock = mockClient(control);
const sleeps: number[] = [];
/** What the mocked restore copies: all items by default; a test can make it lose some. */
let restoreFilter: (item: Record<string, AttributeValue>) => boolean;

const item = (i: number): Record<string, AttributeValue> => ({
  PK: { S: `WS#acme` },
  SK: { S: `CLIENT#${String(i).padStart(4, '0')}` },
  company_name: { S: `Client ${i}` },
  version: { N: '1' },
});

/** The drill's tables (the live one and its copies, named after it) on the project's shared DynamoDB Local. */
async function tables(): Promise<string[]> {
  return ((await data.send(new ListTablesCommand({}))).TableNames ?? []).filter((name) => name.startsWith(LIVE));
}

beforeAll(async () => {
  localTable = await startLocalTable(LIVE);
  data = localTable.client;
  for (let i = 0; i < 40; i++) await data.send(new PutItemCommand({ TableName: LIVE, Item: item(i) }));
});

afterAll(async () => {
  await localTable?.stop();
});

beforeEach(() => {
  sleeps.length = 0;
  restoreFilter = () => true;
  controlMock.reset();
  controlMock.on(DescribeContinuousBackupsCommand).resolves({
    ContinuousBackupsDescription: {
      ContinuousBackupsStatus: 'ENABLED',
      PointInTimeRecoveryDescription: {
        PointInTimeRecoveryStatus: 'ENABLED',
        EarliestRestorableDateTime: new Date('2026-10-18T05:00:00Z'),
        LatestRestorableDateTime: LATEST,
      },
    },
  });
  controlMock.on(RestoreTableToPointInTimeCommand).callsFake(async (input: { SourceTableName: string; TargetTableName: string }) => {
    await createTable(data, input.TargetTableName);
    const { Items = [] } = await data.send(new ScanCommand({ TableName: input.SourceTableName }));
    for (const i of Items.filter((x) => restoreFilter(x))) await data.send(new PutItemCommand({ TableName: input.TargetTableName, Item: i }));
    return { TableDescription: { TableName: input.TargetTableName, TableStatus: 'CREATING' } };
  });
  // Two polls see CREATING, as a restore does for a while; then DynamoDB Local answers.
  let polls = 0;
  controlMock.on(DescribeTableCommand).callsFake(async (input: { TableName: string }) => {
    polls += 1;
    if (polls <= 2) return { Table: { TableName: input.TableName, TableStatus: 'CREATING' } };
    const described = await data.send(new DescribeTableCommand(input));
    return { Table: { ...described.Table, DeletionProtectionEnabled: true } };
  });
  controlMock.on(UpdateTableCommand).resolves({});
  controlMock.on(DeleteTableCommand).callsFake((input: { TableName: string }) => data.send(new DeleteTableCommand(input)));
});

const clients = (): DrillClients => ({ control, data, sleep: async (ms) => void sleeps.push(ms), now: () => NOW });
const options = (extra: Partial<DrillOptions> = {}): DrillOptions => ({ table: LIVE, sampleSize: 25, maxDriftPercent: 2, keep: false, waitMinutes: 120, ...extra });

describe('restore drill', () => {
  it('restores to a new table at the latest restorable time, finds the same data, and deletes the copy', async () => {
    const report = await restoreDrill(clients(), options());
    expect(report).toMatchObject({ ok: true, liveCount: 40, restoredCount: 40, sampled: 25, sampleEqual: 25, sampleDrift: 0, kept: false, problems: [] });
    expect(report.targetTable).toBe('timebill-drill-live-drill-202611220505');
    expect(report.restoredTo).toBe(LATEST.toISOString());
    const [restore] = controlMock.commandCalls(RestoreTableToPointInTimeCommand);
    expect(restore!.args[0].input).toMatchObject({ SourceTableName: LIVE, TargetTableName: report.targetTable, RestoreDateTime: LATEST });
    // It waited for ACTIVE, turned the copy's deletion protection off, and deleted it.
    expect(sleeps).toEqual([15_000, 15_000]);
    expect(controlMock.commandCalls(UpdateTableCommand)[0]!.args[0].input).toEqual({ TableName: report.targetTable, DeletionProtectionEnabled: false });
    expect(await tables()).toEqual([LIVE]);
  });

  it('restores to the time asked for, and refuses one before the earliest restorable time', async () => {
    const at = new Date('2026-11-20T12:00:00Z');
    const report = await restoreDrill(clients(), options({ at }));
    expect(report.restoredTo).toBe(at.toISOString());
    await expect(restoreDrill(clients(), options({ at: new Date('2026-01-01T00:00:00Z') }))).rejects.toThrow(/before the earliest restorable time/);
  });

  it('fails when the copy lost items, and still deletes the copy', async () => {
    restoreFilter = (x) => Number(x.SK!.S!.slice(-4)) % 4 !== 0; // a quarter of the items missing
    const report = await restoreDrill(clients(), options());
    expect(report.ok).toBe(false);
    expect(report.restoredCount).toBe(30);
    expect(report.problems.join('\n')).toMatch(/item counts differ by 25\.00 % \(live 40, copy 30\)/);
    expect(await tables()).toEqual([LIVE]);
  });

  it('fails when sampled items differ from the live table beyond the allowed drift', async () => {
    restoreFilter = () => true;
    controlMock.on(RestoreTableToPointInTimeCommand).callsFake(async (input: { SourceTableName: string; TargetTableName: string }) => {
      await createTable(data, input.TargetTableName);
      const { Items = [] } = await data.send(new ScanCommand({ TableName: input.SourceTableName }));
      // A restore that corrupted every item's name.
      for (const i of Items) await data.send(new PutItemCommand({ TableName: input.TargetTableName, Item: { ...i, company_name: { S: 'garbled' } } }));
      return {};
    });
    const report = await restoreDrill(clients(), options());
    expect(report.ok).toBe(false);
    expect(report.sampleEqual).toBe(0);
    expect(report.problems.join('\n')).toMatch(/25 of 25 sampled items differ from the live table/);
    expect(await tables()).toEqual([LIVE]);
  });

  it('fails when the copy is empty', async () => {
    restoreFilter = () => false;
    const report = await restoreDrill(clients(), options({ maxDriftPercent: 100 }));
    expect(report.ok).toBe(false);
    expect(report.problems[0]).toMatch(/the copy is empty; the live table has 40 items/);
  });

  it('refuses to run without point-in-time recovery, and restores nothing', async () => {
    controlMock.on(DescribeContinuousBackupsCommand).resolves({
      ContinuousBackupsDescription: { ContinuousBackupsStatus: 'ENABLED', PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' } },
    });
    await expect(restoreDrill(clients(), options())).rejects.toThrow(/Point-in-time recovery is not enabled/);
    expect(controlMock.commandCalls(RestoreTableToPointInTimeCommand)).toHaveLength(0);
  });

  it('--keep leaves the copy for a stack to be pointed at', async () => {
    const report = await restoreDrill(clients(), options({ keep: true }));
    expect(report.kept).toBe(true);
    expect((await tables()).sort()).toEqual([LIVE, report.targetTable].sort());
    await data.send(new DeleteTableCommand({ TableName: report.targetTable }));
  });

  it('a copy that never becomes ACTIVE ends the drill, and is deleted', async () => {
    controlMock.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'CREATING' } });
    let t = NOW.getTime();
    const slow: DrillClients = { ...clients(), now: () => new Date((t += 60_000)) };
    await expect(restoreDrill(slow, options({ waitMinutes: 5 }))).rejects.toThrow(/still CREATING after 5 minutes/);
    expect(controlMock.commandCalls(DeleteTableCommand)).toHaveLength(1);
    await data.send(new DeleteTableCommand({ TableName: drillTableName(LIVE, new Date(NOW.getTime() + 60_000)) })).catch(() => undefined);
    expect(await tables()).toEqual([LIVE]);
  });
});

describe('which table', () => {
  it('flag, then TIMEBILL_TABLE_NAME, then cdk-outputs.json of the stack', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'timebill-drill-'));
    try {
      writeFileSync(path.join(dir, 'cdk-outputs.json'), JSON.stringify({ TimebillApi: { TableName: 'from-outputs' }, 'TimebillApi-dev': { TableName: 'dev-table' } }));
      expect(resolveTable({ table: 'flag' }, { TIMEBILL_TABLE_NAME: 'env' }, dir)).toBe('flag');
      expect(resolveTable({}, { TIMEBILL_TABLE_NAME: 'env' }, dir)).toBe('env');
      expect(resolveTable({}, {}, dir)).toBe('from-outputs');
      expect(resolveTable({ 'stack-name': 'TimebillApi-dev' }, {}, dir)).toBe('dev-table');
      expect(() => resolveTable({ 'stack-name': 'Nope' }, {}, dir)).toThrow(/No table/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
