import { cleanup, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { ada } from '../../../../test/support/fixtures';
import { renderKit } from '../../test/render-kit';
import { MemberCard } from '../member-card/member-card';
import { OrgPicker } from '../org-picker/org-picker';
import { resolveTheme } from './theme';

afterEach(cleanup);

describe('theme', () => {
  it('turns a Theme into data-bk-theme and the public custom properties', () => {
    expect(
      resolveTheme({
        colorScheme: 'dark',
        accent: '#be185d',
        accentText: '#fff',
        radius: 4,
        font: 'Georgia, serif',
        fontSize: 16,
        density: 'compact',
        vars: { '--bk-color-danger': '#b00020' },
      }),
    ).toEqual({
      colorScheme: 'dark',
      style: {
        '--_bk-accent-light': '#be185d',
        '--_bk-accent-text-light': '#ffffff',
        '--_bk-accent-dark': '#ce5286',
        '--_bk-accent-text-dark': '#000000',
        '--bk-color-accent-text': '#fff',
        '--bk-radius': '4px',
        '--bk-font': 'Georgia, serif',
        '--bk-font-size': '16px',
        '--bk-density': '0.85',
        '--bk-color-danger': '#b00020',
      },
    });
    expect(resolveTheme('auto')).toEqual({ colorScheme: 'auto', style: undefined });
    expect(resolveTheme({ radius: '0.5rem', density: 1.3 }).style).toEqual({
      '--bk-radius': '0.5rem',
      '--bk-density': '1.3',
    });
  });

  it("sets font-family: inherit for font 'inherit' (a custom property would inherit itself)", () => {
    expect(resolveTheme({ font: 'inherit' }).style).toEqual({ fontFamily: 'inherit' });
  });

  it('uses an accent it cannot read (rgb(), a name, var()) as given in both palettes', () => {
    for (const accent of ['rgb(190, 24, 93)', 'teal', 'var(--brand)']) {
      expect(resolveTheme({ accent }).style).toEqual({ '--bk-color-accent': accent });
    }
  });

  it('accepts an explicit undefined for every option, as if left out', () => {
    expect(
      resolveTheme({
        colorScheme: undefined,
        accent: undefined,
        accentText: undefined,
        radius: undefined,
        font: undefined,
        fontSize: undefined,
        density: undefined,
        vars: undefined,
      }),
    ).toEqual({ colorScheme: undefined, style: undefined });
  });

  it('sets nothing on the roots without a theme, so the page CSS decides', () => {
    renderKit(<MemberCard member={ada} />);
    const card = screen.getByRole('article');
    expect(card.hasAttribute('data-bk-theme')).toBe(false);
    expect(card.getAttribute('style')).toBeNull();
  });

  it('puts the theme on every root, the portalled dialog included, and keeps the host style', async () => {
    const theme = { colorScheme: 'dark', accent: '#be185d', radius: 0 } as const;
    // The dialog copies the palette the opener's root resolved (jsdom resolves no var()).
    renderKit(
      <>
        <MemberCard member={ada} style={{ margin: 7 }} />
        <OrgPicker />
      </>,
      undefined,
      { provider: { theme } },
    );
    const card = screen.getByRole('article');
    expect(card.getAttribute('data-bk-theme')).toBe('dark');
    expect(card.style.getPropertyValue('--_bk-accent-light')).toBe('#be185d');
    expect(card.style.getPropertyValue('--_bk-accent-dark')).toBe('#ce5286');
    expect(card.style.margin).toBe('7px');

    await userEvent.click(screen.getByRole('button', { name: 'Select an organization' }));
    const dialog = screen.getByRole('dialog');
    expect(dialog.getAttribute('data-bk-theme')).toBe('dark');
    expect(dialog.style.getPropertyValue('--bk-radius')).toBe('0px');
  });
});
