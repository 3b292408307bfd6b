import { current, defineHandler } from '../../shared/http/handler.ts';
import { retrieveBusinessProfile } from '../../shared/domain/business-profile.ts';
import { businessProfile } from '../../shared/model/resources.ts';

export const handler = defineHandler('retrieveBusinessProfile', businessProfile, async (req) => current(await retrieveBusinessProfile(req.caller)));
