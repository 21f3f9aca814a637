// Ways to sign in besides email and password, shown under the password form as "Continue with …"
// buttons: each a component that, given the workspace chosen on the form, signs the person in and
// hands the admin token to `onSignedIn`. The workspace's identity providers (admin SSO) are one.
import type { ComponentType } from "react";
import { ContinueWith } from "./ContinueWith";
import type { TokenAnswer } from "../../app/session";

export interface SignInMethodProps {
  workspaceId: string | undefined;
  onSignedIn: (answer: TokenAnswer) => void;
}

export interface SignInMethod {
  id: string;
  Component: ComponentType<SignInMethodProps>;
}

export const otherSignInMethods: SignInMethod[] = [{ id: "identity-providers", Component: ContinueWith }];
