export { ResourceServerService, type RotatedSecret, type RotationHook } from "./resource-server-service";
export { ResourceServerRegistry, type RegisteredServer } from "./registry";
export { joinResourceUrl, canonicalResource } from "./resource-url";
export {
  createResourceServerSchema,
  updateResourceServerSchema,
  scopeTokenSchema,
  nameSchema,
  REGISTRATION_MODES,
  type RegistrationMode,
  type CreateResourceServerInput,
  type UpdateResourceServerInput,
} from "./schemas";
export { toResourceServerView, endpointsFor, badgesOf, type ResourceServerView } from "./views";
