/** A DynamoDB Streams record of a change to the table, as the stream consumer receives it (NEW_AND_OLD_IMAGES). */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { StreamChange } from '../../shared/events/build.ts';

let delivered = 0;
export const streamRecord = (eventName: string, key: { PK: string; SK: string }, oldItem?: object, newItem?: object, approximateSeconds?: number): StreamChange => ({
  eventID: `record-${++delivered}`,
  eventName,
  dynamodb: {
    Keys: marshall(key),
    ...(oldItem ? { OldImage: marshall(oldItem, { removeUndefinedValues: true }) } : {}),
    ...(newItem ? { NewImage: marshall(newItem, { removeUndefinedValues: true }) } : {}),
    ...(approximateSeconds === undefined ? {} : { ApproximateCreationDateTime: approximateSeconds }),
  },
});
