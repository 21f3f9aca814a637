// Access change previews (POST /svc/v1/applications/:id/access-change-previews): who gains and
// loses which scopes and tools if a change were made; nothing is written.
import type { Actor } from "../../shared/actor";
import { previewChange, type ChangePreview, type PreviewDeps } from "./preview";
import type { ProposedChange } from "./schemas";

export { previewChange, toolsFor, MAX_LISTED, type ChangePreview, type PreviewDeps, type UserDelta, type ServiceAccountDelta, type Warning } from "./preview";
export type { FirstSignIn, FirstSignInGrant } from "./default-role";
export type { RevokedClient } from "./connection-revoke";
export { changeSchema, previewRequestSchema, CHANGE_KINDS, type ProposedChange } from "./schemas";

export class AccessChangeService {
  constructor(private readonly deps: PreviewDeps) {}

  preview(actor: Actor, applicationId: string, change: ProposedChange): Promise<ChangePreview> {
    return previewChange(this.deps, actor, applicationId, change);
  }
}
