/** The Google emulators for Firebase / Identity Platform: the token endpoint and the admin API. */

export { type IdentityProject, identityKeys, identityToolkitEmulator } from "./identity-toolkit";
export { type GoogleServiceAccount, googleKeys, googleOAuthEmulator } from "./oauth2-emulator";
