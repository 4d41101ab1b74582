// Requests and notifications typed by the protocol's method table (wire.ts): a method's params and result are
// the ones the protocol declares, so a feature cannot send or read another shape.
import type { CancellationToken, Disposable, LanguageClient } from 'vscode-languageclient/node';

import type { ClientNotifications, Requests, ServerNotifications } from './wire';

export function request<M extends keyof Requests>(
  client: LanguageClient,
  method: M,
  params: Requests[M]['params'],
  token?: CancellationToken,
): Promise<Requests[M]['result']> {
  // no token: none is passed (the client would send an explicit `undefined` on as a parameter)
  return token ? client.sendRequest(method, params, token) : client.sendRequest(method, params);
}

export function notify<M extends keyof ClientNotifications>(client: LanguageClient, method: M, params: ClientNotifications[M]): Promise<void> {
  return client.sendNotification(method, params);
}

export function onNotification<M extends keyof ServerNotifications>(
  client: LanguageClient,
  method: M,
  handler: (params: ServerNotifications[M]) => void,
): Disposable {
  return client.onNotification(method, handler);
}
