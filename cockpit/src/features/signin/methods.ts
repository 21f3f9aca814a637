// Ways to sign in besides email and password, shown under the password form as "Continue with …"
// buttons. Identity providers (issue 20) add one entry here: a component that, given the workspace
// chosen on the form, signs the person in and hands the admin token to `onSignedIn`.
import type { ComponentType } from "react";
import type { TokenAnswer } from "../../app/session";

export interface SignInMethodProps {
  workspaceId: string | undefined;
  onSignedIn: (answer: TokenAnswer) => void;
}

export interface SignInMethod {
  id: string;
  Component: ComponentType<SignInMethodProps>;
}

export const otherSignInMethods: SignInMethod[] = [];
