import { defineWriteHandler } from '../../shared/http/write-handler.ts';
import { updateBusinessProfile } from '../../shared/domain/business-profile.ts';
import { withUpdate } from '../../shared/model/define.ts';
import { businessProfileFields } from '../../shared/model/resources.ts';

/** The fields and the update body alone. */
const schemas = withUpdate(businessProfileFields);

export const handler = defineWriteHandler('updateBusinessProfile', schemas, (req) => updateBusinessProfile(req.caller, req.body(), req.expectedVersion()));
