// The subset of node-oidc-provider's API that bench/peer/oidc-provider-server.ts uses (the package ships no types).
declare module "oidc-provider" {
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string): unknown;
  }
}
