/** Strings of the bridge's own full-embed page (the kit's components bring theirs). */
export const embedMessages = {
  signedInAs: 'Signed in as',
  signingIn: 'Signing in…',
  signInFailed: 'Could not sign in',
  signInFailedDetail:
    'This sign-in link was already used or has expired. Open this page again from the app.',
  sessionEnded: 'Your session has ended',
  sessionExpiredDetail:
    'You have been signed in for as long as allowed. Open this page again from the app to continue.',
  sessionRevokedDetail:
    'You were signed out, or your access changed. Open this page again from the app to continue.',
};

export type EmbedMessages = typeof embedMessages;
