export const ACTION_BUNDLE: string;
export function actionBundle(): Promise<string>;
export function buildAction(): Promise<string>;
