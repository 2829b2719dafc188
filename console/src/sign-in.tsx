/** The page shown without a usable token: why, where to get one, and a field to paste it in. */
import { useState } from 'react';
import { Form, FormActions, Notice, TextAreaField } from '@org-service/client/react';
import { keepToken, sessionOf, type Session, type SignedOutReason } from './session.ts';

const REASONS: Record<SignedOutReason, string> = {
  missing: 'Sign in with a bearer token to manage your organizations.',
  expired: 'Your token has expired. Sign in again with a new one.',
  refused: 'The service did not accept that token. Sign in with a valid one.',
};

export function SignInPage({
  reason,
  onSignedIn,
}: {
  reason: SignedOutReason;
  onSignedIn: (session: Session) => void;
}) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string>();
  const submit = () => {
    const session = sessionOf(token);
    if (typeof session === 'string') {
      setProblem(
        session === 'expired' ? 'This token has expired.' : 'This is not a bearer token (a JWT with a subject).',
      );
      return;
    }
    keepToken(session.token);
    onSignedIn(session);
  };
  return (
    <main className="console-sign-in" id="main">
      <div className="console-sign-in__card">
        <h1>Organizations console</h1>
        <Notice tone={reason === 'missing' ? 'info' : 'warning'}>{REASONS[reason]}</Notice>
        <Form busy={false} label="Sign in" onSubmit={submit}>
          <TextAreaField
            label="Bearer token"
            name="token"
            value={token}
            autoComplete="off"
            spellCheck={false}
            rows={4}
            error={problem}
            onChange={(event) => setToken(event.target.value)}
            hint="The token stays in this browser tab only, and is gone when the tab is closed."
          />
          <FormActions submit="Sign in" />
        </Form>
        <h2>Where to get a token</h2>
        <p>
          Your application signs you in and opens this console with your token, or gives you one to paste here. On a
          development machine, the service's repository prints one:
        </p>
        <pre className="osc-secret">npm run -s token -- --sub YOUR-USER-ID</pre>
      </div>
    </main>
  );
}
