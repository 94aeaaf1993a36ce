/** The page's session: the token and who it is for, times in ms since the epoch. */
export interface EmbedSessionInfo {
  slug: string;
  sessionToken: string;
  expiresAt: number;
  absoluteExpiresAt: number;
  organizationId: string;
  organizationName: string;
  memberId: string;
  framingOrigin: string;
}
