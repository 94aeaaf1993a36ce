import { type DemoUser, signIn } from './host-api';

/** This host's own sign-in (a stand-in for yours): pick one of two demo users. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const as = (user: DemoUser) => () => {
    signIn(user).then(onSignedIn, (error: unknown) => console.error(error));
  };
  return (
    <main className="host-sign-in">
      <h1>Example host app</h1>
      <p>Sign in to this app. It signs you in to the bridge for you.</p>
      <button type="button" onClick={as('ada')}>
        Sign in as Ada Lovelace (admin)
      </button>
      <button type="button" onClick={as('grace')}>
        Sign in as Grace Hopper (member)
      </button>
    </main>
  );
}
