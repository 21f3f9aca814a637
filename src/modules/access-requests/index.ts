// Access requests and agent connections of enterprise-managed agents (docs/enterprise-agents.md).
export { AccessRequestService, AUTO_APPROVER, type AgentConnectionFacts, type ConnectionAsk, type AccessRequestView, type FamilyRevoker, type ApprovalBindings, type ClientConnector } from "./access-request-service";
export { ACCESS_REQUEST_STATUSES, ACCESS_REQUEST_LIST, listAccessRequestsQuery, approveAccessRequestSchema, denyAccessRequestSchema, type AccessRequestStatus, type ListAccessRequestsQuery, type ApproveAccessRequestInput, type DenyAccessRequestInput } from "./schemas";
