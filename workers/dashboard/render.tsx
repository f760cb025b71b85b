/** JSX entry points for the dashboard route files (workers/routes/dashboard.ts, dashboard-sign-in.ts stay plain TypeScript). */
import { DashboardPage, type DashboardProps } from "./dashboard-page";
import { type LiveProps, LiveSections } from "./live-sections";
import { SignInPage, type SignInProps } from "./sign-in-page";

export const renderDashboard = (props: DashboardProps) => <DashboardPage {...props} />;
export const renderLive = (props: LiveProps) => <LiveSections {...props} />;
export const renderSignIn = (props: SignInProps) => <SignInPage {...props} />;
