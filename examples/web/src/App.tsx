import { Component, Suspense, useEffect, useMemo, useState, type ReactNode } from 'react';
import { RelayEnvironmentProvider } from 'react-relay';
import { Header } from './Header';
import { createEnvironment } from './relay/environment';
import { useRoute, type Route } from './route';
import { ChangeRequestScreen } from './screens/ChangeRequest';
import { OrganizationScreen } from './screens/Organization';
import { OrganizationsScreen } from './screens/Organizations';
import { SpaceScreen } from './screens/Space';
import { demoToken, storedToken, storeToken } from './session';

export function App() {
  // undefined: not known yet (asking the app server for the demo token).
  const [token, setToken] = useState<string | null | undefined>(() => storedToken() ?? undefined);
  useEffect(() => {
    if (token === undefined) demoToken().then(setToken, () => setToken(null));
  }, [token]);
  // One Relay store per caller: another token never reads what the previous one loaded.
  const environment = useMemo(() => createEnvironment(token ?? null), [token]);
  const route = useRoute();
  if (token === undefined) return <p className="loading">Loading…</p>;

  const useToken = (next: string | null) => {
    storeToken(next);
    setToken(next ?? undefined);
  };
  return (
    <RelayEnvironmentProvider environment={environment} key={token ?? ''}>
      <Boundary key={`header:${token}`} retry={JSON.stringify(route)}>
        <Suspense fallback={<header className="header">…</header>}>
          <Header token={token} onToken={useToken} retry={JSON.stringify(route)} />
        </Suspense>
      </Boundary>
      <main>
        <Boundary key={JSON.stringify(route)}>
          <Suspense fallback={<p className="loading">Loading…</p>}>
            <Screen route={route} />
          </Suspense>
        </Boundary>
      </main>
    </RelayEnvironmentProvider>
  );
}

function Screen({ route }: { route: Route }) {
  switch (route.screen) {
    case 'organizations':
      return <OrganizationsScreen />;
    case 'organization':
      return <OrganizationScreen organizationId={route.organizationId} />;
    case 'space':
      return <SpaceScreen spaceId={route.spaceId} />;
    case 'changeRequest':
      return <ChangeRequestScreen spaceId={route.spaceId} changeRequestId={route.changeRequestId} />;
  }
}

/**
 * Shows what failed (a GraphQL error, the network) in place of the screen, and renders it again
 * when `retry` changes: the header's boundary, keyed by the token only, kept a failed viewer query
 * (the gateway down a moment) in red for as long as the page, every other screen working again.
 */
class Boundary extends Component<{ children: ReactNode; retry?: string }, { error: Error | null; retry?: string }> {
  state = { error: null as Error | null, retry: this.props.retry };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  static getDerivedStateFromProps(props: { retry?: string }, state: { retry?: string }) {
    return props.retry === state.retry ? null : { error: null, retry: props.retry };
  }
  render() {
    if (!this.state.error) return this.props.children;
    return (
      <p className="error" role="alert">
        {this.state.error.message}
      </p>
    );
  }
}
