/** JSX entry points of the run and object pages (workers/routes/dashboard-pages.ts). */
import { ObjectPage, type ObjectPageProps } from "./object-page";
import { RunLinkPage } from "./run-link-page";
import { RunPage, type RunPageProps } from "./run-page";

export const renderRunPage = (props: RunPageProps) => <RunPage {...props} />;
export const renderRunLinkPage = (props: { nonce: string; id: string }) => <RunLinkPage {...props} />;
export const renderObjectPage = (props: ObjectPageProps) => <ObjectPage {...props} />;
