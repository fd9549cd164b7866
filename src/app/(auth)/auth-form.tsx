import Link from "next/link";

// The sign-in, sign-up and password reset forms' common frame.

/** An auth page's form: its heading and a line under it, then its fields. */
export function AuthForm({
  title,
  intro,
  onSubmit,
  children,
}: {
  title: string;
  intro: React.ReactNode;
  onSubmit: (e: React.FormEvent) => void;
  children: React.ReactNode;
}) {
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <div>
        <h1 className="text-lg font-semibold">{title}</h1>
        <p className="mt-1 text-sm text-slate-500">{intro}</p>
      </div>
      {children}
    </form>
  );
}

/** A link between the auth pages, in the brand colour. */
export function AuthLink({ href, className, children }: { href: string; className?: string; children: React.ReactNode }) {
  return (
    <Link className={className ? `${className} text-brand-600 hover:underline` : "text-brand-600 hover:underline"} href={href}>
      {children}
    </Link>
  );
}
