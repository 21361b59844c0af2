import { connect, nkeyAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import type { TeamCredentialsFile } from './teamCredentials';
import { teamNames } from './teamNames';

/** Where the team's server is and who connects: the `--team` URL and the credentials. */
export interface TeamEndpoint {
  /** The server URL, e.g. nats://nats.example.com:4222. */
  url: string;
  credentials: Pick<TeamCredentialsFile, 'team' | 'member' | 'nats'>;
}

/** The connection options a member connects with: its login, its own inbox, and reconnecting forever. */
function connectionOptions(endpoint: TeamEndpoint) {
  const { nats, team, member } = endpoint.credentials;
  const login = 'nkeySeed' in nats ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(nats.nkeySeed)) } : { user: nats.user, pass: nats.password };
  return {
    servers: endpoint.url,
    name: `toolgate ${team}/${member}`,
    ...login,
    // Replies come to this member's inbox, which only it may subscribe to.
    inboxPrefix: teamNames(team).inbox(member),
    // A gate outlives its server: it keeps trying, and works with its local console meanwhile.
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout: 5_000,
  };
}

/** Connects once (then reconnects by itself when the connection drops); rejects when the server cannot be reached or refuses the login. */
export function connectTeam(endpoint: TeamEndpoint): Promise<NatsConnection> {
  return connect(connectionOptions(endpoint));
}
