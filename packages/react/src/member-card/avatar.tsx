import { useState } from 'react';

export function initialsOf(name: string): string {
  const words = name
    .replace(/@.*/, '')
    .split(/[\s._-]+/)
    .filter(Boolean);
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : [words[0]];
  return letters
    .map((word) => (word ? Array.from(word)[0] : ''))
    .join('')
    .toUpperCase();
}

/** The photo, or the initials when there is none or it fails to load. Key it by `src`. */
export function Avatar({ name, src }: { name: string; src: string | null }) {
  const [failed, setFailed] = useState(false);
  const showImage = Boolean(src) && !failed;
  return (
    <span className="bk-avatar" data-state={showImage ? 'image' : 'initials'} aria-hidden="true">
      {showImage ? (
        <img
          className="bk-avatar__image"
          src={src ?? undefined}
          alt=""
          onError={() => setFailed(true)}
        />
      ) : (
        <span className="bk-avatar__initials">{initialsOf(name)}</span>
      )}
    </span>
  );
}
